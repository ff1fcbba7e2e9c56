package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// V4L2 ioctl request numbers and constants (64-bit layouts, as on arm64
// and amd64).
const (
	vidiocQuerycap       = 0x80685600
	vidiocEnumFmt        = 0xc0405602
	vidiocSFmt           = 0xc0d05605
	vidiocReqbufs        = 0xc0145608
	vidiocQuerybuf       = 0xc0585609
	vidiocQbuf           = 0xc058560f
	vidiocDqbuf          = 0xc0585611
	vidiocStreamon       = 0x40045612
	vidiocStreamoff      = 0x40045613
	vidiocEnumFramesizes = 0xc02c564a

	bufTypeVideoCapture = 1
	memoryMmap          = 1
	fieldNone           = 1

	capVideoCapture = 0x00000001
	capStreaming    = 0x04000000
	capDeviceCaps   = 0x80000000

	frmsizeDiscrete = 1
)

// FourCC is a V4L2 pixel format code.
type FourCC uint32

// Pixel formats the box reads.
const (
	MJPEG FourCC = 'M' | 'J'<<8 | 'P'<<16 | 'G'<<24
	YUYV  FourCC = 'Y' | 'U'<<8 | 'Y'<<16 | 'V'<<24
	// UYVY is what CSI HDMI bridges (TC358743) usually deliver.
	UYVY FourCC = 'U' | 'Y'<<8 | 'V'<<16 | 'Y'<<24
)

// String returns the four characters.
func (f FourCC) String() string {
	b := []byte{byte(f), byte(f >> 8), byte(f >> 16), byte(f >> 24)}
	return string(bytes.TrimRight(b, "\x00 "))
}

// ioctl calls ioctl(fd, req, &buf[0]), retrying on EINTR.
func ioctl(fd int, req uintptr, buf []byte) error {
	for {
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(&buf[0])))
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

var le = binary.LittleEndian

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// caps is what VIDIOC_QUERYCAP says.
type caps struct {
	Driver, Card, Bus string
	DeviceCaps        uint32
}

func parseCaps(b []byte) caps {
	c := caps{Driver: cstr(b[0:16]), Card: cstr(b[16:48]), Bus: cstr(b[48:80])}
	c.DeviceCaps = le.Uint32(b[84:])
	if c.DeviceCaps&capDeviceCaps != 0 {
		c.DeviceCaps = le.Uint32(b[88:])
	}
	return c
}

func queryCaps(fd int) (caps, error) {
	b := make([]byte, 104)
	if err := ioctl(fd, vidiocQuerycap, b); err != nil {
		return caps{}, fmt.Errorf("QUERYCAP: %w", err)
	}
	return parseCaps(b), nil
}

// canCapture reports whether the device streams video frames.
func (c caps) canCapture() bool {
	return c.DeviceCaps&capVideoCapture != 0 && c.DeviceCaps&capStreaming != 0
}

// enumFormats lists the capture pixel formats.
func enumFormats(fd int) []FourCC { return enumFormatsOf(fd, bufTypeVideoCapture) }

// enumFormatsOf lists the pixel formats of the queue of buffer type typ.
func enumFormatsOf(fd int, typ uint32) []FourCC {
	var out []FourCC
	for i := 0; i < 256; i++ {
		b := make([]byte, 64)
		le.PutUint32(b[0:], uint32(i))
		le.PutUint32(b[4:], typ)
		if err := ioctl(fd, vidiocEnumFmt, b); err != nil {
			break
		}
		out = append(out, FourCC(le.Uint32(b[44:])))
	}
	return out
}

// size is a frame size.
type size struct{ W, H int }

// enumSizes lists discrete frame sizes of f; for stepwise or continuous
// ranges it returns the range's maximum and sets ranged.
func enumSizes(fd int, f FourCC) (sizes []size, ranged bool) {
	for i := 0; i < 256; i++ {
		b := make([]byte, 44)
		le.PutUint32(b[0:], uint32(i))
		le.PutUint32(b[4:], uint32(f))
		if err := ioctl(fd, vidiocEnumFramesizes, b); err != nil {
			break
		}
		if le.Uint32(b[8:]) != frmsizeDiscrete {
			// stepwise: min_w, max_w, step_w, min_h, max_h, step_h
			return []size{{int(le.Uint32(b[16:])), int(le.Uint32(b[28:]))}}, true
		}
		sizes = append(sizes, size{int(le.Uint32(b[12:])), int(le.Uint32(b[16:]))})
	}
	return sizes, false
}

// chooseFormat picks MJPEG, else YUYV, else UYVY; the error names what
// is offered.
func chooseFormat(offered []FourCC) (FourCC, error) {
	for _, want := range []FourCC{MJPEG, YUYV, UYVY} {
		for _, f := range offered {
			if f == want {
				return f, nil
			}
		}
	}
	names := make([]string, len(offered))
	for i, f := range offered {
		names[i] = f.String()
	}
	if len(names) == 0 {
		return 0, fmt.Errorf("the device offers no capture formats")
	}
	return 0, fmt.Errorf("the device offers %v but the box reads only MJPG, YUYV or UYVY", names)
}

// chooseSize picks want when offered, else the largest size not above
// want's area, else the smallest offered. A ranged device gets want
// (the driver clamps it).
func chooseSize(offered []size, ranged bool, want size) size {
	if ranged || len(offered) == 0 {
		return want
	}
	var best, smallest size
	for _, s := range offered {
		if s == want {
			return s
		}
		if a := s.W * s.H; a <= want.W*want.H && a > best.W*best.H {
			best = s
		}
		if smallest.W == 0 || s.W*s.H < smallest.W*smallest.H {
			smallest = s
		}
	}
	if best.W != 0 {
		return best
	}
	return smallest
}

// Format is the negotiated picture format.
type Format struct {
	Pixel         FourCC
	Width, Height int
	// Stride is bytes per line (YUYV); SizeImage the largest frame.
	Stride, SizeImage int
}

func setFormat(fd int, f FourCC, s size) (Format, error) {
	b := make([]byte, 208)
	le.PutUint32(b[0:], bufTypeVideoCapture)
	le.PutUint32(b[8:], uint32(s.W))
	le.PutUint32(b[12:], uint32(s.H))
	le.PutUint32(b[16:], uint32(f))
	le.PutUint32(b[20:], fieldNone)
	if err := ioctl(fd, vidiocSFmt, b); err != nil {
		return Format{}, fmt.Errorf("S_FMT %s %dx%d: %w", f, s.W, s.H, err)
	}
	got := Format{
		Pixel: FourCC(le.Uint32(b[16:])), Width: int(le.Uint32(b[8:])), Height: int(le.Uint32(b[12:])),
		Stride: int(le.Uint32(b[24:])), SizeImage: int(le.Uint32(b[28:])),
	}
	if got.Pixel != f {
		return got, fmt.Errorf("S_FMT: asked for %s, the driver chose %s", f, got.Pixel)
	}
	if got.Stride == 0 && f != MJPEG {
		got.Stride = got.Width * 2
	}
	return got, nil
}
