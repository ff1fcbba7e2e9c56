package ocr

import (
	"image"
	"image/color"
)

// Gray returns img as one 8-bit channel, the input tesseract binarizes
// anyway (a PNG of it is a third of an RGBA one): each pixel's smallest
// colour component, so coloured text on white (Notes' yellow "Done", which
// luma makes nearly white) stays dark while white stays white; inverted when the image
// is mostly dark: tesseract reads dark text on a light ground best, and a
// home screen's white labels on a dark wallpaper are misread otherwise
// (the sim's "Maps" read as "ET" before this).
func Gray(img image.Image) *image.Gray {
	if g, ok := img.(*image.Gray); ok {
		return g
	}
	b := img.Bounds()
	out := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	if rgba, ok := img.(*image.RGBA); ok {
		for y := range b.Dy() {
			src := rgba.Pix[rgba.PixOffset(b.Min.X, b.Min.Y+y):]
			dst := out.Pix[y*out.Stride:]
			for x := range b.Dx() {
				p := src[4*x : 4*x+3 : 4*x+3]
				dst[x] = min(p[0], p[1], p[2])
			}
		}
		return invertDark(out)
	}
	for y := range b.Dy() {
		for x := range b.Dx() {
			c := color.RGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.RGBA)
			out.Pix[y*out.Stride+x] = min(c.R, c.G, c.B)
		}
	}
	return invertDark(out)
}

// invertDark inverts g in place when its mean luma is below the middle.
func invertDark(g *image.Gray) *image.Gray {
	var sum uint64
	for _, v := range g.Pix {
		sum += uint64(v)
	}
	if len(g.Pix) == 0 || sum/uint64(len(g.Pix)) >= 128 {
		return g
	}
	for i, v := range g.Pix {
		g.Pix[i] = 255 - v
	}
	return g
}
