package capture

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
)

// Decode turns a frame into an image at the capture's full size.
func Decode(f *Frame) (image.Image, error) {
	switch f.Format.Pixel {
	case MJPEG:
		img, err := jpeg.Decode(bytes.NewReader(FixMJPEG(f.Data)))
		if err != nil {
			return nil, fmt.Errorf("capture: decode MJPEG frame %d: %w", f.Seq, err)
		}
		return img, nil
	case YUYV, UYVY:
		w, h, stride := f.Format.Width, f.Format.Height, f.Format.Stride
		if stride < w*2 {
			stride = w * 2
		}
		if w <= 0 || h <= 0 || len(f.Data) < stride*(h-1)+w*2 {
			return nil, fmt.Errorf("capture: %s frame %d has %d bytes, want %d for %dx%d", f.Format.Pixel, f.Seq, len(f.Data), stride*h, w, h)
		}
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		if f.Format.Pixel == UYVY {
			packed422ToRGBA(dst, f.Data, stride, 1, 0, 3, 2)
		} else {
			YUYVToRGBA(dst, f.Data, stride)
		}
		return dst, nil
	}
	return nil, fmt.Errorf("capture: frame %d has pixel format %s, which the box cannot decode", f.Seq, f.Format.Pixel)
}

// YUYVToRGBA converts packed YUYV 4:2:2 (BT.601, limited range, as
// capture devices send it) into dst, which sets the size. src holds rows
// of stride bytes.
func YUYVToRGBA(dst *image.RGBA, src []byte, stride int) {
	packed422ToRGBA(dst, src, stride, 0, 1, 2, 3)
}

// packed422ToRGBA converts a packed 4:2:2 frame whose 4-byte groups hold
// Y0, U, Y1, V at the given offsets (YUYV: 0,1,2,3; UYVY: 1,0,3,2).
func packed422ToRGBA(dst *image.RGBA, src []byte, stride, oy0, ou, oy1, ov int) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	for y := 0; y < h; y++ {
		in := src[y*stride : y*stride+w*2]
		out := dst.Pix[y*dst.Stride : y*dst.Stride+w*4]
		for x := 0; x+1 < w; x += 2 {
			g := in[x*2 : x*2+4 : x*2+4]
			y0, u, y1, v := int32(g[oy0])-16, int32(g[ou])-128, int32(g[oy1])-16, int32(g[ov])-128
			rd := 409*v + 128
			gd := -100*u - 208*v + 128
			bd := 516*u + 128
			c0, c1 := 298*y0, 298*y1
			o := out[x*4 : x*4+8 : x*4+8]
			o[0], o[1], o[2], o[3] = clamp((c0+rd)>>8), clamp((c0+gd)>>8), clamp((c0+bd)>>8), 0xff
			o[4], o[5], o[6], o[7] = clamp((c1+rd)>>8), clamp((c1+gd)>>8), clamp((c1+bd)>>8), 0xff
		}
		if w%2 == 1 { // odd width: the last pixel has half a group
			x := w - 1
			g := in[x*2 : x*2+2 : x*2+2]
			c := 298 * (int32(g[oy0%2]) - 16)
			u := int32(g[ou%2]) - 128
			o := out[x*4 : x*4+4]
			o[0], o[1], o[2], o[3] = clamp((c+128)>>8), clamp((c-100*u+128)>>8), clamp((c+516*u+128)>>8), 0xff
		}
	}
}

func clamp(v int32) uint8 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// DarkLevel is the brightest a letterbox bar may be, as the largest of R,
// G and B (0..255); capture noise keeps real bars a little above 0. A
// saturated colour (deep blue has little luma) is never dark.
const DarkLevel = 32

// ContentRect returns the part of img inside black letterbox or
// pillarbox bars: the bounds with all-dark rows and columns removed from
// each edge. An image that is dark everywhere returns an empty rectangle
// (the phone's screen is off; callers keep the previous geometry).
func ContentRect(img image.Image) image.Rectangle {
	b := img.Bounds()
	level := levelFunc(img)
	rowDark := func(y, x0, x1 int) bool {
		for x := x0; x < x1; x++ {
			if level(x, y) > DarkLevel {
				return false
			}
		}
		return true
	}
	top, bottom := b.Min.Y, b.Max.Y
	for top < bottom && rowDark(top, b.Min.X, b.Max.X) {
		top++
	}
	if top == bottom {
		return image.Rectangle{}
	}
	for bottom > top && rowDark(bottom-1, b.Min.X, b.Max.X) {
		bottom--
	}
	// Columns: scan row by row (cache friendly), narrowing the dark
	// margins on both sides.
	left, right := b.Max.X, b.Min.X
	for y := top; y < bottom; y++ {
		for x := b.Min.X; x < left; x++ {
			if level(x, y) > DarkLevel {
				left = x
				break
			}
		}
		for x := b.Max.X - 1; x >= right; x-- {
			if level(x, y) > DarkLevel {
				right = x + 1
				break
			}
		}
	}
	return image.Rect(left, top, right, bottom)
}

// levelFunc returns a fast reader of max(R, G, B) for the image types
// capture makes.
func levelFunc(img image.Image) func(x, y int) uint8 {
	switch m := img.(type) {
	case *image.RGBA:
		return func(x, y int) uint8 {
			i := m.PixOffset(x, y)
			p := m.Pix[i : i+3 : i+3]
			return max(p[0], p[1], p[2])
		}
	case *image.Gray:
		return func(x, y int) uint8 { return m.Pix[m.PixOffset(x, y)] }
	}
	return func(x, y int) uint8 {
		r, g, b, _ := img.At(x, y).RGBA()
		return uint8(max(r, g, b) >> 8)
	}
}

// Tracker turns content rectangles into a geometry epoch: the epoch
// increases when the rectangle's size changes by more than Slack pixels
// (rotation, a new resolution), not for a pixel of capture noise. The
// zero value is ready to use. Not safe for concurrent use.
type Tracker struct {
	rect  image.Rectangle
	epoch uint64
}

// Slack is how many pixels an edge may move without a new epoch.
const Slack = 4

// Update records r and returns the current rectangle and epoch. An empty
// r (a dark screen) keeps the previous rectangle. The first non-empty
// rectangle starts epoch 1.
func (t *Tracker) Update(r image.Rectangle) (image.Rectangle, uint64) {
	if r.Empty() {
		return t.rect, t.epoch
	}
	if t.epoch == 0 || far(r.Min.X, t.rect.Min.X) || far(r.Min.Y, t.rect.Min.Y) ||
		far(r.Max.X, t.rect.Max.X) || far(r.Max.Y, t.rect.Max.Y) {
		t.rect = r
		t.epoch++
	}
	return t.rect, t.epoch
}

func far(a, b int) bool { return a-b > Slack || b-a > Slack }
