package mcp

import (
	"image"

	"golang.org/x/image/draw"
)

// downscale returns img scaled to w×h. For *image.RGBA (what the sim and
// the capture path produce) it averages integer k×k blocks first (so large
// reductions do not alias) and then samples bilinearly in 8-bit fixed
// point straight on the pixel bytes; other image types go through
// x/image/draw's ApproxBiLinear.
func downscale(img image.Image, w, h int) *image.RGBA {
	src, ok := img.(*image.RGBA)
	if !ok {
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
		return dst
	}
	b := src.Bounds()
	if k := min(b.Dx()/w, b.Dy()/h); k >= 2 {
		src = boxReduce(src, k)
	}
	return bilinear(src, w, h)
}

// boxReduce averages each k×k block of src into one pixel.
func boxReduce(src *image.RGBA, k int) *image.RGBA {
	b := src.Bounds()
	w, h := b.Dx()/k, b.Dy()/k
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	sums := make([]uint32, 4*w)
	n := uint32(k * k)
	for y := range h {
		clear(sums)
		for dy := range k {
			row := src.Pix[(y*k+dy)*src.Stride+0 : (y*k+dy)*src.Stride+4*w*k]
			for x := range w {
				s := sums[4*x : 4*x+4 : 4*x+4]
				for dx := range k {
					p := row[4*(x*k+dx) : 4*(x*k+dx)+4 : 4*(x*k+dx)+4]
					s[0] += uint32(p[0])
					s[1] += uint32(p[1])
					s[2] += uint32(p[2])
					s[3] += uint32(p[3])
				}
			}
		}
		out := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for i, v := range sums {
			out[i] = uint8((v + n/2) / n)
		}
	}
	return dst
}

// bilinear samples src at w×h with pixel centres aligned.
func bilinear(src *image.RGBA, w, h int) *image.RGBA {
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	type tap struct{ i0, i1, f int }
	taps := func(n, sn int) []tap {
		t := make([]tap, n)
		for i := range t {
			// Source coordinate of the destination pixel's centre, in 1/256.
			c := ((2*i+1)*sn*256)/(2*n) - 128
			c = max(0, min(c, (sn-1)*256))
			i0 := c >> 8
			t[i] = tap{i0, min(i0+1, sn-1), c & 0xff}
		}
		return t
	}
	xs, ys := taps(w, sw), taps(h, sh)
	for y, ty := range ys {
		r0 := src.Pix[(b.Min.Y+ty.i0-b.Min.Y)*src.Stride:]
		r1 := src.Pix[(b.Min.Y+ty.i1-b.Min.Y)*src.Stride:]
		out := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		fy := ty.f
		for x, tx := range xs {
			a0, a1 := 4*tx.i0, 4*tx.i1
			fx := tx.f
			for c := range 4 {
				top := int(r0[a0+c])*(256-fx) + int(r0[a1+c])*fx
				bot := int(r1[a0+c])*(256-fx) + int(r1[a1+c])*fx
				out[4*x+c] = uint8((top*(256-fy) + bot*fy + 1<<15) >> 16)
			}
		}
	}
	return dst
}
