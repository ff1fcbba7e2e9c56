package picture

// Box is the room a picture is fitted into: at most W pixels wide and H
// high; a side of 0 does not bound. A picture is scaled down to fit,
// keeping its shape, and never up.
type Box struct {
	W, H int
	// Blocks lets the picture be a little smaller than the room (down to
	// 7/8 of it) when that makes it a whole-block reduction of the
	// source, each pixel the average of a k×k block: no sampling pass
	// after the averaging, so about half the CPU, and text as sharp. The
	// live view asks for it; screenshots are sized exactly.
	Blocks bool
}

// Square is the box of side n: a picture's longer side at most n (how
// screenshots are sized by max_size).
func Square(n int) Box { return Box{W: n, H: n} }

// Fit is the size of a w×h picture fitted into b: the bounding side is
// scaled to the box's and the other in proportion, rounded down, at
// least 1.
func (b Box) Fit(w, h int) (int, int) {
	// num/den is the scale; the side that overshoots its bound the most
	// sets it (w/b.W against h/b.H, compared without division).
	num, den := 1, 1
	if b.W > 0 && w > b.W && (b.H <= 0 || w*b.H >= h*b.W) {
		num, den = b.W, w
	} else if b.H > 0 && h > b.H {
		num, den = b.H, h
	}
	if num == den {
		return w, h
	}
	fw, fh := max(1, w*num/den), max(1, h*num/den)
	if b.Blocks {
		// The smallest block side k whose reduction fits, and whether it
		// keeps 7/8 of the fitted size.
		k := max((w+fw-1)/fw, (h+fh-1)/fh)
		if bw, bh := w/k, h/k; k <= maxBox && bw >= 1 && bh >= 1 && 8*max(bw, bh) >= 7*max(fw, fh) {
			return bw, bh
		}
	}
	return fw, fh
}

// Fit is the size of a w×h picture fitted into maxSize on its longer side.
func Fit(w, h, maxSize int) (int, int) { return Square(maxSize).Fit(w, h) }
