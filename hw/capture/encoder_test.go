package capture

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The hardware JPEG encoder is the first memory-to-memory node that gives
// JPEG from a raw format the box can feed; anything else leaves the
// software encoder, with an error that says what each node lacked.
func TestChooseEncoder(t *testing.T) {
	t.Parallel()
	const stream = capStreaming
	// The nodes of a Pi 4's Raspberry Pi OS kernel (bcm2835-codec), as
	// QUERYCAP and ENUM_FMT describe them, and a UVC capture dongle.
	dongle := encoderProbe{path: "/dev/video0", caps: caps{Driver: "uvcvideo", Card: "USB Video", DeviceCaps: capVideoCapture | stream}, out: []FourCC{MJPEG, YUYV}}
	decoder := encoderProbe{path: "/dev/video10", caps: caps{Driver: "bcm2835-codec", Card: "bcm2835-codec-decode", DeviceCaps: capVideoM2MMP | stream},
		in: []FourCC{'H' | '2'<<8 | '6'<<16 | '4'<<24, MJPEG}, out: []FourCC{YUV420, RGBA32}}
	imageEnc := encoderProbe{path: "/dev/video31", caps: caps{Driver: "bcm2835-codec", Card: "bcm2835-codec-encode_image", DeviceCaps: capVideoM2MMP | stream},
		in: []FourCC{YUV420, RGB24, BGR32, RGBA32}, out: []FourCC{JPEG}}
	for _, tc := range []struct {
		name   string
		probes []encoderProbe
		want   Encoder
		why    []string // what the error says when none does
	}{
		{name: "pi: encode_image after the dongle and the decoder", probes: []encoderProbe{dongle, decoder, imageEnc},
			want: Encoder{Path: "/dev/video31", Driver: "bcm2835-codec", Card: "bcm2835-codec-encode_image", MPlane: true, Input: RGBA32, Output: JPEG}},
		{name: "single-planar m2m giving MJPEG from YUV420 only",
			probes: []encoderProbe{{path: "/dev/video5", caps: caps{Card: "hantro", DeviceCaps: capVideoM2M | stream}, in: []FourCC{YUV420}, out: []FourCC{MJPEG}}},
			want:   Encoder{Path: "/dev/video5", Card: "hantro", Input: YUV420, Output: MJPEG}},
		{name: "capture and output on one node count as m2m",
			probes: []encoderProbe{{path: "/dev/video6", caps: caps{Card: "vim2m", DeviceCaps: capVideoCapture | capVideoOutput | stream}, in: []FourCC{RGB24}, out: []FourCC{JPEG}}},
			want:   Encoder{Path: "/dev/video6", Card: "vim2m", Input: RGB24, Output: JPEG}},
		{name: "the first of two encoders", probes: []encoderProbe{imageEnc, {path: "/dev/video32", caps: imageEnc.caps, in: imageEnc.in, out: imageEnc.out}},
			want: Encoder{Path: "/dev/video31", Driver: "bcm2835-codec", Card: "bcm2835-codec-encode_image", MPlane: true, Input: RGBA32, Output: JPEG}},
		{name: "no video device", why: []string{"no video device"}},
		{name: "a node the box may not open", probes: []encoderProbe{{path: "/dev/video31", err: fmt.Errorf("open video31: %w", os.ErrPermission)}},
			why: []string{"/dev/video31: open video31: permission denied"}},
		{name: "a dongle only (the sim, a Pi 5)", probes: []encoderProbe{dongle}, why: []string{"/dev/video0 (USB Video) is not a memory-to-memory device"}},
		{name: "the decoder gives no JPEG", probes: []encoderProbe{decoder}, why: []string{"/dev/video10 (bcm2835-codec-decode) gives no JPEG"}},
		{name: "an encoder of formats the box cannot make",
			probes: []encoderProbe{{path: "/dev/video7", caps: caps{Card: "odd", DeviceCaps: capVideoM2M | stream}, in: []FourCC{'N' | 'V'<<8 | '1'<<16 | '6'<<24}, out: []FourCC{JPEG}}},
			why:    []string{"/dev/video7 (odd) takes [NV16], none of [AB24 BGR4 RGB3 YU12]"}},
		{name: "not streaming", probes: []encoderProbe{{path: "/dev/video8", caps: caps{Card: "mem2mem", DeviceCaps: capVideoM2M}, in: []FourCC{RGBA32}, out: []FourCC{JPEG}}},
			why: []string{"/dev/video8 (mem2mem) is not a memory-to-memory device"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chooseEncoder(tc.probes)
			if tc.why == nil {
				if err != nil || got != tc.want {
					t.Fatalf("chooseEncoder = %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			if !errors.Is(err, ErrNoEncoder) {
				t.Fatalf("chooseEncoder = %+v, %v; want ErrNoEncoder", got, err)
			}
			for _, w := range tc.why {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// FindEncoder on a machine without video nodes says so and leaves the
// software encoder.
func TestFindEncoderNone(t *testing.T) {
	t.Parallel()
	if _, err := FindEncoder(t.TempDir()); !errors.Is(err, ErrNoEncoder) || !strings.Contains(err.Error(), "no video device") {
		t.Fatalf("FindEncoder(empty) = %v, want ErrNoEncoder: no video device", err)
	}
}
