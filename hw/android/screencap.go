package android

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
)

// Pixel formats of `screencap` raw output (adb's framebuffer_service and
// Android's PixelFormat).
const (
	FormatRGBA8888 = 1
	FormatRGBX8888 = 2
	FormatRGB888   = 3
	FormatRGB565   = 4
	FormatBGRA8888 = 5
)

// maxScreenSide bounds a screen's width and height (the largest phones
// and tablets are under 4000 pixels a side).
const maxScreenSide = 8192

// ErrScreencap: the bytes are not a raw screencap.
var ErrScreencap = errors.New("android: not a raw screencap")

// DecodeScreencap decodes the raw output of `screencap` (no -p): a
// little-endian u32 width, height and pixel format, on newer Android a
// u32 colour space, then the rows with no padding. Which header it is
// follows from the length. The picture is an *image.NRGBA (alpha is
// dropped: the screen is opaque), or *image.RGBA for RGBX.
func DecodeScreencap(b []byte) (image.Image, error) {
	if len(b) < 12 {
		return nil, fmt.Errorf("%w: %d bytes, shorter than its header", ErrScreencap, len(b))
	}
	iw, ih, err := screencapSize(b)
	if err != nil {
		return nil, err
	}
	w, h := uint32(iw), uint32(ih)
	format := binary.LittleEndian.Uint32(b[8:])
	var bpp int
	switch format {
	case FormatRGBA8888, FormatRGBX8888, FormatBGRA8888:
		bpp = 4
	case FormatRGB888:
		bpp = 3
	case FormatRGB565:
		bpp = 2
	default:
		return nil, fmt.Errorf("%w: pixel format %d", ErrScreencap, format)
	}
	n := int(w) * int(h) * bpp
	var px []byte
	switch len(b) {
	case 12 + n:
		px = b[12:]
	case 16 + n: // with the colour space (Android 11 and later)
		px = b[16:]
	default:
		return nil, fmt.Errorf("%w: %d bytes for %d×%d at %d bytes a pixel", ErrScreencap, len(b), w, h, bpp)
	}
	img := image.NewNRGBA(image.Rect(0, 0, int(w), int(h)))
	out := img.Pix
	switch format {
	case FormatRGBA8888, FormatRGBX8888:
		copy(out, px)
		for i := 3; i < len(out); i += 4 {
			out[i] = 0xff
		}
	case FormatBGRA8888:
		for i := 0; i < len(out); i += 4 {
			out[i], out[i+1], out[i+2], out[i+3] = px[i+2], px[i+1], px[i], 0xff
		}
	case FormatRGB888:
		for i, j := 0, 0; i < len(out); i, j = i+4, j+3 {
			out[i], out[i+1], out[i+2], out[i+3] = px[j], px[j+1], px[j+2], 0xff
		}
	case FormatRGB565:
		for i, j := 0, 0; i < len(out); i, j = i+4, j+2 {
			v := uint16(px[j]) | uint16(px[j+1])<<8
			r, g, bl := byte(v>>11), byte(v>>5&0x3f), byte(v&0x1f)
			out[i], out[i+1], out[i+2], out[i+3] = r<<3|r>>2, g<<2|g>>4, bl<<3|bl>>2, 0xff
		}
	}
	return img, nil
}

// screencapSize is the width and height in a raw screencap's header (at
// least its first 8 bytes).
func screencapSize(b []byte) (w, h int, err error) {
	if len(b) < 8 {
		return 0, 0, fmt.Errorf("%w: %d bytes, shorter than its header", ErrScreencap, len(b))
	}
	uw, uh := binary.LittleEndian.Uint32(b[0:]), binary.LittleEndian.Uint32(b[4:])
	if uw == 0 || uh == 0 || uw > maxScreenSide || uh > maxScreenSide {
		return 0, 0, fmt.Errorf("%w: size %d×%d", ErrScreencap, uw, uh)
	}
	return int(uw), int(uh), nil
}

// decodeScreencapOutput decodes screencap's output as exec delivers it:
// the raw picture, possibly after lines of warnings the command wrote on
// its error output (exec mixes the two), such as the one phones with
// several displays print.
func decodeScreencapOutput(b []byte) (image.Image, error) {
	img, err := DecodeScreencap(b)
	if err == nil {
		return img, nil
	}
	for i := 0; i < len(b) && i < 4096; i++ {
		if b[i] != '\n' {
			continue
		}
		if img, err2 := DecodeScreencap(b[i+1:]); err2 == nil {
			return img, nil
		}
	}
	return nil, err
}
