package sim

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// kappa places cubic Bézier control points for a quarter circle.
const kappa = 0.5522847498

// painter draws on one frame: shapes through an anti-aliasing rasterizer
// and text with the Go fonts. It caches font faces by size; it is not safe
// for concurrent use.
type painter struct {
	dst     *image.RGBA
	regular *opentype.Font
	bold    *opentype.Font
	faces   map[faceKey]font.Face
	icons   map[iconKey]*image.RGBA
	raster  vector.Rasterizer
}

type iconKey struct {
	name string
	edge int // pixels
}

type faceKey struct {
	bold bool
	size int // quarter pixels
}

func newPainter() (*painter, error) {
	reg, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, err
	}
	bold, err := opentype.Parse(gobold.TTF)
	if err != nil {
		return nil, err
	}
	return &painter{regular: reg, bold: bold, faces: map[faceKey]font.Face{}, icons: map[iconKey]*image.RGBA{}}, nil
}

// face returns the regular or bold Go font at px pixels.
func (p *painter) face(bold bool, px float64) font.Face {
	k := faceKey{bold: bold, size: int(math.Round(px * 4))}
	if f, ok := p.faces[k]; ok {
		return f
	}
	src := p.regular
	if bold {
		src = p.bold
	}
	f, err := opentype.NewFace(src, &opentype.FaceOptions{Size: float64(k.size) / 4, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		// The embedded Go fonts always make faces; a failure here is a
		// broken build, not a runtime condition.
		panic("sim: font face: " + err.Error())
	}
	p.faces[k] = f
	return f
}

// fill paints r with c (alpha blended when c is translucent).
func (p *painter) fill(r image.Rectangle, c color.Color) {
	op := draw.Over
	if _, _, _, a := c.RGBA(); a == 0xFFFF {
		op = draw.Src
	}
	draw.Draw(p.dst, r, image.NewUniform(c), image.Point{}, op)
}

// roundRect paints a rectangle with corners of radius rad, anti-aliased.
func (p *painter) roundRect(x0, y0, x1, y1, rad float64, c color.Color) {
	rad = math.Min(rad, math.Min((x1-x0)/2, (y1-y0)/2))
	ox, oy := math.Floor(x0), math.Floor(y0)
	w, h := int(math.Ceil(x1-ox)), int(math.Ceil(y1-oy))
	if w <= 0 || h <= 0 {
		return
	}
	z := &p.raster
	z.Reset(w, h)
	l, t, r, b := float32(x0-ox), float32(y0-oy), float32(x1-ox), float32(y1-oy)
	k := float32(rad * (1 - kappa))
	rr := float32(rad)
	z.MoveTo(l+rr, t)
	z.LineTo(r-rr, t)
	z.CubeTo(r-k, t, r, t+k, r, t+rr)
	z.LineTo(r, b-rr)
	z.CubeTo(r, b-k, r-k, b, r-rr, b)
	z.LineTo(l+rr, b)
	z.CubeTo(l+k, b, l, b-k, l, b-rr)
	z.LineTo(l, t+rr)
	z.CubeTo(l, t+k, l+k, t, l+rr, t)
	z.ClosePath()
	p.rasterize(int(ox), int(oy), w, h, c)
}

// ring paints a circle outline of width w centred on (cx, cy): an outer
// disc and an inner one wound the other way, which cancels.
func (p *painter) ring(cx, cy, rad, w float64, c color.Color) {
	ox, oy := math.Floor(cx-rad), math.Floor(cy-rad)
	n := int(math.Ceil(cx+rad-ox)) + 1
	z := &p.raster
	z.Reset(n, n)
	for i, r := range []float64{rad, rad - w} {
		x, y := float32(cx-ox), float32(cy-oy)
		rr, k := float32(r), float32(r*kappa)
		if i == 0 {
			z.MoveTo(x+rr, y)
			z.CubeTo(x+rr, y+k, x+k, y+rr, x, y+rr)
			z.CubeTo(x-k, y+rr, x-rr, y+k, x-rr, y)
			z.CubeTo(x-rr, y-k, x-k, y-rr, x, y-rr)
			z.CubeTo(x+k, y-rr, x+rr, y-k, x+rr, y)
		} else {
			z.MoveTo(x+rr, y)
			z.CubeTo(x+rr, y-k, x+k, y-rr, x, y-rr)
			z.CubeTo(x-k, y-rr, x-rr, y-k, x-rr, y)
			z.CubeTo(x-rr, y+k, x-k, y+rr, x, y+rr)
			z.CubeTo(x+k, y+rr, x+rr, y+k, x+rr, y)
		}
		z.ClosePath()
	}
	p.rasterize(int(ox), int(oy), n, n, c)
}

// circle paints a disc of radius rad centred on (cx, cy).
func (p *painter) circle(cx, cy, rad float64, c color.Color) {
	p.roundRect(cx-rad, cy-rad, cx+rad, cy+rad, rad, c)
}

// polygon paints a closed polygon through pts (pairs of x, y).
func (p *painter) polygon(c color.Color, pts ...float64) {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := 0; i+1 < len(pts); i += 2 {
		x0, x1 = math.Min(x0, pts[i]), math.Max(x1, pts[i])
		y0, y1 = math.Min(y0, pts[i+1]), math.Max(y1, pts[i+1])
	}
	ox, oy := math.Floor(x0), math.Floor(y0)
	w, h := int(math.Ceil(x1-ox)), int(math.Ceil(y1-oy))
	if w <= 0 || h <= 0 {
		return
	}
	z := &p.raster
	z.Reset(w, h)
	z.MoveTo(float32(pts[0]-ox), float32(pts[1]-oy))
	for i := 2; i+1 < len(pts); i += 2 {
		z.LineTo(float32(pts[i]-ox), float32(pts[i+1]-oy))
	}
	z.ClosePath()
	p.rasterize(int(ox), int(oy), w, h, c)
}

// line paints a straight stroke of width w from (x0, y0) to (x1, y1).
func (p *painter) line(x0, y0, x1, y1, w float64, c color.Color) {
	dx, dy := x1-x0, y1-y0
	n := math.Hypot(dx, dy)
	if n == 0 {
		return
	}
	nx, ny := -dy/n*w/2, dx/n*w/2
	p.polygon(c, x0+nx, y0+ny, x1+nx, y1+ny, x1-nx, y1-ny, x0-nx, y0-ny)
}

func (p *painter) rasterize(x, y, w, h int, c color.Color) {
	r := image.Rect(x, y, x+w, y+h)
	clipped := r.Intersect(p.dst.Bounds())
	if clipped.Empty() {
		return
	}
	p.raster.DrawOp = draw.Over
	if clipped == r {
		p.raster.Draw(p.dst, r, image.NewUniform(c), image.Point{})
		return
	}
	// The rasterizer does not clip: rasterize into a mask, then let
	// draw.DrawMask clip it to the frame.
	mask := image.NewAlpha(image.Rect(0, 0, w, h))
	p.raster.Draw(mask, mask.Bounds(), image.Opaque, image.Point{})
	draw.DrawMask(p.dst, r, image.NewUniform(c), image.Point{}, mask, image.Point{}, draw.Over)
}

// text draws s with its baseline starting at (x, y).
func (p *painter) text(s string, bold bool, px, x, y float64, c color.Color) {
	d := font.Drawer{Dst: p.dst, Src: image.NewUniform(c), Face: p.face(bold, px), Dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(y * 64)}}
	d.DrawString(s)
}

// width is how wide s is in the given font.
func (p *painter) width(s string, bold bool, px float64) float64 {
	return float64(font.MeasureString(p.face(bold, px), s)) / 64
}

// centered draws s centred on x with its baseline at y.
func (p *painter) centered(s string, bold bool, px, x, y float64, c color.Color) {
	p.text(s, bold, px, x-p.width(s, bold, px)/2, y, c)
}

// ellipsize shortens s with "…" until it fits w.
func (p *painter) ellipsize(s string, bold bool, px, w float64) string {
	if p.width(s, bold, px) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && p.width(string(r)+"…", bold, px) > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// gradient fills the whole frame with a vertical gradient from top to
// bottom colours.
func (p *painter) gradient(top, bottom hexColor) {
	b := p.dst.Bounds()
	h := b.Dy()
	row := make([]byte, 4*b.Dx())
	for y := 0; y < h; y++ {
		f := float64(y) / float64(max(h-1, 1))
		t, b := top.rgba(), bottom.rgba()
		c := [4]byte{lerp8(t.R, b.R, f), lerp8(t.G, b.G, f), lerp8(t.B, b.B, f), 0xFF}
		for i := 0; i < len(row); i += 4 {
			copy(row[i:i+4], c[:])
		}
		copy(p.dst.Pix[y*p.dst.Stride:], row)
	}
}

func lerp8(a, b uint8, f float64) uint8 {
	return uint8(math.Round(float64(a) + (float64(b)-float64(a))*f))
}

// alpha returns the opaque colour c with opacity a (0..1).
func alpha(c color.Color, a float64) color.NRGBA {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: uint8(math.Round(a * 255))}
}

// hexColor is an opaque colour written 0xRRGGBB, so colours can be
// constants.
type hexColor uint32

func (h hexColor) rgba() color.RGBA {
	return color.RGBA{R: uint8(h >> 16), G: uint8(h >> 8), B: uint8(h), A: 0xFF}
}

// RGBA implements color.Color.
func (h hexColor) RGBA() (r, g, b, a uint32) { return h.rgba().RGBA() }

func cosSin(a float64) (float64, float64) { return math.Cos(a), math.Sin(a) }
