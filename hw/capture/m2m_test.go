package capture

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeEncoder is a memory-to-memory JPEG encoder as a V4L2 driver shows
// one to user space: it reads the same structures (whose layouts
// TestV4L2Layout holds to the kernel's headers), pads each line of the
// picture to 64 bytes as drivers align them, answers DQBUF with EAGAIN
// before a picture is done, and encodes with image/jpeg. No kernel here
// has a memory-to-memory JPEG encoder (Debian's has neither vim2m nor
// vicodec, and bcm2835-codec is the Raspberry Pi kernel's), so this is
// what the encoder's sequence of calls is checked against.
type fakeEncoder struct {
	t      *testing.T
	mplane bool
	in     FourCC // the raw format it takes

	// adjust, when set, is the width the driver sets instead of the one
	// asked for; stuck: pictures never come back; noQuality: the driver
	// has no quality control.
	adjust    int
	stuck     bool
	noQuality bool

	w, h, stride, size int
	quality            int
	bufs               [2][]byte // the picture's and the JPEG's
	queued, done       [2]bool
	used               int // the picture's bytes queued
	streaming          [2]bool
	setups, pictures   int
	eagain             bool
	jpeg               []byte // the picture encoded last, copied out at DQBUF
	calls              []string
}

const fakeOutOffset = 1 << 20 // the JPEG buffer's mmap offset

func (f *fakeEncoder) types() (in, out uint32) {
	if f.mplane {
		return bufTypeVideoOutputMPlane, bufTypeVideoCaptureMPlane
	}
	return bufTypeVideoOutput, bufTypeVideoCapture
}

// queue is 0 for the picture's queue and 1 for the JPEG's.
func (f *fakeEncoder) queue(typ uint32) (int, error) {
	in, out := f.types()
	switch typ {
	case in:
		return 0, nil
	case out:
		return 1, nil
	}
	return 0, unix.EINVAL
}

func (f *fakeEncoder) ioctl(req uintptr, arg, planes []byte) error {
	switch req {
	case vidiocSFmt:
		f.calls = append(f.calls, "S_FMT")
		q, err := f.queue(le.Uint32(arg[fmtType:]))
		if err != nil {
			return err
		}
		u := arg[fmtUnion:]
		w, h, pf := int(le.Uint32(u[pixWidth:])), int(le.Uint32(u[pixHeight:])), FourCC(le.Uint32(u[pixPixelformat:]))
		if q == 0 && pf != f.in || q == 1 && pf != JPEG {
			pf = f.in // drivers pick a format of their own
			if q == 1 {
				pf = JPEG
			}
		}
		if f.adjust != 0 {
			w = f.adjust
		}
		stride, size := (minStride(pf, w)+63)&^63, 0
		if q == 0 {
			size = inputSize(pf, stride, h)
			f.w, f.h, f.stride, f.size = w, h, stride, size
		} else {
			stride, size = 0, w*h*3+4096
		}
		le.PutUint32(u[pixWidth:], uint32(w))
		le.PutUint32(u[pixHeight:], uint32(h))
		le.PutUint32(u[pixPixelformat:], uint32(pf))
		if f.mplane {
			if u[mpNumPlanes] != 1 {
				f.t.Errorf("S_FMT with %d planes", u[mpNumPlanes])
			}
			p := u[mpPlaneFmt:]
			le.PutUint32(p[planeFmtBytesperline:], uint32(stride))
			le.PutUint32(p[planeFmtSizeimage:], uint32(size))
		} else {
			le.PutUint32(u[pixBytesperline:], uint32(stride))
			le.PutUint32(u[pixSizeimage:], uint32(size))
		}
	case vidiocSCtrl:
		if f.noQuality {
			return unix.EINVAL
		}
		if le.Uint32(arg[ctrlID:]) != cidJPEGQuality {
			return unix.EINVAL
		}
		f.quality = int(le.Uint32(arg[ctrlValue:]))
	case vidiocReqbufs:
		q, err := f.queue(le.Uint32(arg[reqType:]))
		if err != nil || le.Uint32(arg[reqMemory:]) != memoryMmap {
			return unix.EINVAL
		}
		if f.streaming[q] {
			return unix.EBUSY
		}
		f.calls = append(f.calls, fmt.Sprintf("REQBUFS %d", le.Uint32(arg[reqCount:])))
		if le.Uint32(arg[reqCount:]) == 0 {
			f.bufs[q], f.queued[q], f.done[q] = nil, false, false
			return nil
		}
		n := f.size
		if q == 1 {
			n = f.w*f.h*3 + 4096
		}
		f.bufs[q] = make([]byte, n)
		le.PutUint32(arg[reqCount:], 1)
	case vidiocQuerybuf, vidiocQbuf, vidiocDqbuf:
		q, err := f.queue(le.Uint32(arg[bufType:]))
		if err != nil || le.Uint32(arg[bufIndex:]) != 0 || le.Uint32(arg[bufMemory:]) != memoryMmap || f.bufs[q] == nil {
			return unix.EINVAL
		}
		if f.mplane != (planes != nil) || f.mplane && le.Uint32(arg[bufLength:]) != 1 {
			f.t.Errorf("a buffer of %d planes (planes given: %v) on multi-planar %v queues", le.Uint32(arg[bufLength:]), planes != nil, f.mplane)
			return unix.EINVAL
		}
		used := func() int {
			if planes != nil {
				return int(le.Uint32(planes[planeBytesused:]))
			}
			return int(le.Uint32(arg[bufBytesused:]))
		}
		setUsed := func(n int) {
			if planes != nil {
				le.PutUint32(planes[planeBytesused:], uint32(n))
				le.PutUint32(planes[planeDataOffset:], 0)
			} else {
				le.PutUint32(arg[bufBytesused:], uint32(n))
			}
		}
		switch req {
		case vidiocQuerybuf:
			off := uint32(q * fakeOutOffset)
			if planes != nil {
				le.PutUint32(planes[planeM:], off)
				le.PutUint32(planes[planeLength:], uint32(len(f.bufs[q])))
			} else {
				le.PutUint32(arg[bufM:], off)
				le.PutUint32(arg[bufLength:], uint32(len(f.bufs[q])))
			}
		case vidiocQbuf:
			if f.queued[q] {
				return unix.EINVAL
			}
			if q == 0 {
				if used() < f.size {
					f.t.Errorf("QBUF picture with %d bytes, the format's %d", used(), f.size)
				}
				f.used = used()
			}
			f.queued[q], f.done[q] = true, false
			f.eagain = true
		case vidiocDqbuf:
			if !f.queued[q] {
				return unix.EINVAL
			}
			if !f.done[q] {
				if f.stuck || !f.streaming[0] || !f.streaming[1] || !f.queued[0] || !f.queued[1] || f.eagain {
					f.eagain = false // ready by the next try, as after a poll
					return unix.EAGAIN
				}
				f.encode()
			}
			if q == 1 {
				setUsed(len(f.jpeg))
				copy(f.bufs[1], f.jpeg)
			}
			f.queued[q], f.done[q] = false, false
		}
	case vidiocStreamon, vidiocStreamoff:
		q, err := f.queue(le.Uint32(arg))
		if err != nil {
			return err
		}
		on := req == vidiocStreamon
		if on {
			f.setups++
		}
		f.streaming[q] = on
		if !on {
			f.queued[q], f.done[q] = false, false
		}
	default:
		return unix.ENOTTY
	}
	return nil
}

func (f *fakeEncoder) encode() {
	img := image.NewRGBA(image.Rect(0, 0, f.w, f.h))
	src := f.bufs[0]
	for y := range f.h {
		for x := range f.w {
			var c color.RGBA
			switch f.in {
			case RGBA32:
				p := src[y*f.stride+4*x:]
				c = color.RGBA{p[0], p[1], p[2], 255}
			case BGR32:
				p := src[y*f.stride+4*x:]
				c = color.RGBA{p[2], p[1], p[0], 255}
			case RGB24:
				p := src[y*f.stride+3*x:]
				c = color.RGBA{p[0], p[1], p[2], 255}
			case YUV420:
				cs, ch := f.stride/2, (f.h+1)/2
				u := src[f.stride*f.h:]
				v := u[cs*ch:]
				r, g, b := color.YCbCrToRGB(src[y*f.stride+x], u[(y/2)*cs+x/2], v[(y/2)*cs+x/2])
				c = color.RGBA{r, g, b, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: max(f.quality, 1)}); err != nil {
		f.t.Fatal(err)
	}
	f.jpeg = buf.Bytes()
	f.done = [2]bool{true, true}
	f.pictures++
}

func (f *fakeEncoder) mmap(offset int64, length int) ([]byte, error) {
	q := int(offset / fakeOutOffset)
	if q > 1 || f.bufs[q] == nil || length > len(f.bufs[q]) {
		return nil, unix.EINVAL
	}
	return f.bufs[q][:length], nil
}

func (f *fakeEncoder) munmap([]byte) error { return nil }

func (f *fakeEncoder) wait(int16, time.Duration) (bool, error) { return true, nil }

func (f *fakeEncoder) close() error { return nil }

// testPicture is a w×h picture of colour blocks and a gradient, the kind
// of picture a phone's screen is.
func testPicture(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255}
			if (x/40+y/40)%2 == 0 {
				c = color.RGBA{230, 40, 40, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// meanDiff is the mean absolute difference per channel of a and b.
func meanDiff(t *testing.T, a *image.RGBA, b image.Image) float64 {
	t.Helper()
	if a.Rect.Size() != b.Bounds().Size() {
		t.Fatalf("picture %v, JPEG %v", a.Rect, b.Bounds())
	}
	var sum, n float64
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			r, g, bb, _ := b.At(x, y).RGBA()
			p := a.RGBAAt(x, y)
			for i, v := range []uint32{r >> 8, g >> 8, bb >> 8} {
				d := float64(v) - float64([]uint8{p.R, p.G, p.B}[i])
				sum += max(d, -d)
				n++
			}
		}
	}
	return sum / n
}

func newFakeJPEG(t *testing.T, mplane bool, in FourCC) (*JPEGEncoder, *fakeEncoder) {
	f := &fakeEncoder{t: t, mplane: mplane, in: in}
	e := Encoder{Path: "/dev/video31", Driver: "fake", Card: "fake-encode", MPlane: mplane, Input: in, Output: JPEG}
	return &JPEGEncoder{enc: e, n: f, timeout: 50 * time.Millisecond}, f
}

// EncodeJPEG gives the picture as a JPEG through the device, for each
// raw format the box feeds and both kinds of queue, with lines padded by
// the driver and an odd size (393×852, the live view's); a second
// picture of another size sets the queues up again, one of the same size
// does not.
func TestJPEGEncoder(t *testing.T) {
	for _, mplane := range []bool{true, false} {
		for _, in := range encoderInputs() {
			t.Run(fmt.Sprintf("%s/mplane=%v", in, mplane), func(t *testing.T) {
				j, f := newFakeJPEG(t, mplane, in)
				for i, size := range []image.Point{{393, 852}, {393, 852}, {256, 555}} {
					pic := testPicture(size.X, size.Y)
					b, err := j.EncodeJPEG(pic, 90)
					if err != nil {
						t.Fatalf("picture %d: %v", i, err)
					}
					got, err := jpeg.Decode(bytes.NewReader(b))
					if err != nil {
						t.Fatalf("picture %d: the JPEG does not decode: %v", i, err)
					}
					if d := meanDiff(t, pic, got); d > 4 {
						t.Errorf("picture %d: the JPEG is %.1f per channel off the picture", i, d)
					}
				}
				if f.quality != 90 || f.pictures != 3 || f.setups != 4 {
					t.Errorf("quality %d, %d pictures, %d STREAMONs; want 90, 3 and 4 (2 queues, 2 sizes)", f.quality, f.pictures, f.setups)
				}
				if err := j.Close(); err != nil {
					t.Fatal(err)
				}
				if _, err := j.EncodeJPEG(testPicture(8, 8), 90); !errors.Is(err, ErrEncoderClosed) {
					t.Fatalf("EncodeJPEG after Close = %v, want ErrEncoderClosed", err)
				}
			})
		}
	}
}

// A driver without the quality control still encodes (at its own
// quality).
func TestJPEGEncoderWithoutQuality(t *testing.T) {
	j, f := newFakeJPEG(t, true, YUV420)
	f.noQuality = true
	if _, err := j.EncodeJPEG(testPicture(64, 48), 80); err != nil {
		t.Fatal(err)
	}
}

// The encoder's failures say which device refused what, and the next
// picture sets the device up afresh.
func TestJPEGEncoderFailures(t *testing.T) {
	j, f := newFakeJPEG(t, true, RGBA32)
	f.adjust = 400
	_, err := j.EncodeJPEG(testPicture(393, 852), 70)
	if err == nil || !strings.Contains(err.Error(), "/dev/video31 (fake-encode): S_FMT picture AB24 393x852: the driver set AB24 400x852") {
		t.Fatalf("a driver that changes the size: %v", err)
	}
	f.adjust = 0
	f.stuck = true
	_, err = j.EncodeJPEG(testPicture(393, 852), 70)
	if err == nil || !strings.Contains(err.Error(), "DQBUF JPEG: no answer in 50ms") {
		t.Fatalf("a stuck device: %v", err)
	}
	f.stuck = false
	if _, err := j.EncodeJPEG(testPicture(393, 852), 70); err != nil {
		t.Fatalf("after a stuck picture: %v", err)
	}
	if f.setups != 4 {
		t.Errorf("%d STREAMONs, want 4: the stuck picture's set-up and the next one's", f.setups)
	}
}
