package ocr

import (
	"image"

	"golang.org/x/image/draw"
)

// Fit returns img scaled down so that its longer side is at most size
// (img itself when it already fits). Text on a phone screen stays legible
// to the engine at the box's default screenshot size, and the engine's
// time grows with the pixels.
func Fit(img image.Image, size int) image.Image {
	b := img.Bounds()
	long := max(b.Dx(), b.Dy())
	if long <= size || size <= 0 {
		return img
	}
	w, h := max(1, b.Dx()*size/long), max(1, b.Dy()*size/long)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}
