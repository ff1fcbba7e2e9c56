package capture

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// A V4L2 memory-to-memory JPEG encoder (on a Pi, bcm2835-codec's
// "encode_image", usually /dev/video31) takes raw pictures on its OUTPUT
// queue and gives JPEGs on its CAPTURE queue. [FindEncoder] finds one
// among the video nodes; the box's software encoder is the fallback when
// the kernel offers none. The encoding itself through the device (queue
// a picture, dequeue its JPEG) is [JPEGEncoder]'s.

// ErrNoEncoder: the kernel offers no hardware JPEG encoder the box can
// feed; pictures are encoded in software.
var ErrNoEncoder = errors.New("capture: no hardware JPEG encoder")

// More V4L2 constants, for memory-to-memory devices.
const (
	capVideoOutput    = 0x00000002
	capVideoCaptureMP = 0x00001000
	capVideoOutputMP  = 0x00002000
	capVideoM2MMP     = 0x00004000
	capVideoM2M       = 0x00008000

	bufTypeVideoOutput        = 2
	bufTypeVideoCaptureMPlane = 9
	bufTypeVideoOutputMPlane  = 10
)

// Pixel formats of a JPEG encoder's two sides.
const (
	// JPEG is V4L2_PIX_FMT_JPEG, what bcm2835-codec's encoder gives.
	JPEG FourCC = 'J' | 'P'<<8 | 'E'<<16 | 'G'<<24
	// RGBA32 ('AB24') is the bytes of an image.RGBA as they are.
	RGBA32 FourCC = 'A' | 'B'<<8 | '2'<<16 | '4'<<24
	// BGR32 ('BGR4') and RGB24 ('RGB3') need the bytes reordered.
	BGR32 FourCC = 'B' | 'G'<<8 | 'R'<<16 | '4'<<24
	RGB24 FourCC = 'R' | 'G'<<8 | 'B'<<16 | '3'<<24
	// YUV420 ('YU12', planar 4:2:0) needs a colour conversion; every
	// encoder takes it.
	YUV420 FourCC = 'Y' | 'U'<<8 | '1'<<16 | '2'<<24
)

// encoderInputs are the raw formats the box can feed an encoder, the
// cheapest to make from an RGBA picture first.
func encoderInputs() []FourCC { return []FourCC{RGBA32, BGR32, RGB24, YUV420} }

// Encoder is a hardware JPEG encoder the box found.
type Encoder struct {
	// Path is the device node, e.g. /dev/video31.
	Path string
	// Driver and Card are what the driver calls itself
	// (bcm2835-codec, "bcm2835-codec-encode_image").
	Driver, Card string
	// MPlane: the device's queues are the multi-planar kind.
	MPlane bool
	// Input is the raw format the box is to feed it; Output the JPEG
	// format it gives (JPEG or MJPEG).
	Input, Output FourCC
}

// encoderProbe is what QUERYCAP and ENUM_FMT said of one video node.
type encoderProbe struct {
	path string
	// err is why the node could not be asked (open or VIDIOC_QUERYCAP
	// failed: gone, busy, not permitted); the rest is then empty.
	err  error
	caps caps
	// in and out are the formats of the node's OUTPUT queue (raw
	// pictures in) and CAPTURE queue (encoded pictures out).
	in, out []FourCC
}

// mplane reports whether the node's memory-to-memory queues are
// multi-planar.
func (p encoderProbe) mplane() bool {
	c := p.caps.DeviceCaps
	return c&capVideoM2MMP != 0 || c&(capVideoCaptureMP|capVideoOutputMP) == capVideoCaptureMP|capVideoOutputMP
}

// m2m reports whether the node is a streaming memory-to-memory device.
func (p encoderProbe) m2m() bool {
	c := p.caps.DeviceCaps
	both := c&(capVideoCapture|capVideoOutput) == capVideoCapture|capVideoOutput
	return c&capStreaming != 0 && (c&(capVideoM2M|capVideoM2MMP) != 0 || both || p.mplane())
}

// chooseEncoder picks the first node that is a memory-to-memory device
// giving JPEG (or MJPEG) from a raw format the box can feed, in
// encoderInputs' order. Its error says what each node lacked.
func chooseEncoder(probes []encoderProbe) (Encoder, error) {
	var why []string
	for _, p := range probes {
		if p.err != nil {
			why = append(why, fmt.Sprintf("%s: %v", p.path, p.err))
			continue
		}
		name := fmt.Sprintf("%s (%s)", p.path, p.caps.Card)
		if !p.m2m() {
			why = append(why, name+" is not a memory-to-memory device")
			continue
		}
		out := FourCC(0)
		for _, f := range []FourCC{JPEG, MJPEG} {
			if slices.Contains(p.out, f) {
				out = f
				break
			}
		}
		if out == 0 {
			why = append(why, name+" gives no JPEG")
			continue
		}
		for _, in := range encoderInputs() {
			if slices.Contains(p.in, in) {
				return Encoder{Path: p.path, Driver: p.caps.Driver, Card: p.caps.Card, MPlane: p.mplane(), Input: in, Output: out}, nil
			}
		}
		why = append(why, fmt.Sprintf("%s takes %v, none of %v", name, p.in, encoderInputs()))
	}
	if len(why) == 0 {
		return Encoder{}, fmt.Errorf("%w: no video device", ErrNoEncoder)
	}
	return Encoder{}, fmt.Errorf("%w: %s", ErrNoEncoder, strings.Join(why, "; "))
}

// FindEncoder probes the video nodes listed in sysDir (""
// means /sys/class/video4linux) with VIDIOC_QUERYCAP and VIDIOC_ENUM_FMT
// and returns the hardware JPEG encoder chooseEncoder picks, or an error
// wrapping ErrNoEncoder that says why each node does not do (the box
// then encodes in software).
func FindEncoder(sysDir string) (Encoder, error) {
	if sysDir == "" {
		sysDir = "/sys/class/video4linux"
	}
	var probes []encoderProbe
	for _, path := range (&Device{opts: Options{SysDir: sysDir}}).candidates() {
		p, err := probeEncoder(path)
		if err != nil {
			p = encoderProbe{path: path, err: err} // not one to use; the error says why
		}
		probes = append(probes, p)
	}
	return chooseEncoder(probes)
}

// EncoderAt is the hardware JPEG encoder at the video node path (as
// /dev/video31), or an error wrapping ErrNoEncoder that says why the node
// is not one the box can use.
func EncoderAt(path string) (Encoder, error) {
	p, err := probeEncoder(path)
	if err != nil {
		p = encoderProbe{path: path, err: err}
	}
	return chooseEncoder([]encoderProbe{p})
}

// probeEncoder asks one node what it is and which formats its two
// queues take.
func probeEncoder(path string) (encoderProbe, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return encoderProbe{}, fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	defer unix.Close(fd)
	c, err := queryCaps(fd)
	if err != nil {
		return encoderProbe{}, err
	}
	p := encoderProbe{path: path, caps: c}
	in, out := uint32(bufTypeVideoOutput), uint32(bufTypeVideoCapture)
	if p.mplane() {
		in, out = bufTypeVideoOutputMPlane, bufTypeVideoCaptureMPlane
	}
	p.in, p.out = enumFormatsOf(fd, in), enumFormatsOf(fd, out)
	return p, nil
}
