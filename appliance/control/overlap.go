package control

import (
	"image"
	"image/draw"
)

// How openlolo_full_page lines pages up: each row of a frame is reduced to
// a signature (the mean brightness of sigBins columns), and two frames are
// compared row by row. The sim renders the same pixels for the same
// content, so its rows match exactly; the tolerances are for capture
// noise on real phones.
const (
	sigBins = 32
	// sigScale: signatures keep brightness in 1/16 steps.
	sigScale = 16
	// rowTol is the largest difference of any bin (1/16 steps) for two
	// rows to be the same: two brightness levels.
	rowTol = 2 * sigScale
	// texMin is the spread between a row's brightest and darkest bins
	// above which it has content (text, edges) to match on; plain rows
	// match at any shift and say nothing.
	texMin = 2 * sigScale
	// matchMin is the share of compared content rows that must match
	// for a shift to be found.
	matchMin = 0.9
	// minTextured is how many content rows a match needs.
	minTextured = 6
	// headerMax and footerMax bound the fixed chrome at the top and the
	// bottom, as shares of the height.
	headerMax = 0.3
	footerMax = 0.25
	// minOverlap is the smallest overlap (a share of the scrolling area)
	// a shift is looked for in.
	minOverlap = 0.15
	// topBand is the share of the height at the top where a change alone
	// (the status bar's clock) does not count as the page moving.
	topBand = 0.1
)

// signature is a frame reduced to one row of sigBins brightness values per
// pixel row.
type signature struct {
	rows     [][sigBins]int32
	textured []bool
}

// sign computes img's signature.
func sign(img image.Image) signature {
	src, ok := img.(*image.RGBA)
	if !ok {
		b := img.Bounds()
		src = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(src, src.Rect, img, b.Min, draw.Src)
	}
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	sg := signature{rows: make([][sigBins]int32, h), textured: make([]bool, h)}
	var sum [sigBins]int64
	var cnt [sigBins]int64
	for x := range w {
		cnt[x*sigBins/w]++
	}
	for y := range h {
		clear(sum[:])
		row := src.Pix[y*src.Stride : y*src.Stride+4*w]
		for x := range w {
			p := row[4*x : 4*x+3 : 4*x+3]
			sum[x*sigBins/w] += 299*int64(p[0]) + 587*int64(p[1]) + 114*int64(p[2])
		}
		lo, hi := int32(1<<30), int32(-1)
		for i := range sigBins {
			v := int32(0)
			if cnt[i] > 0 {
				v = int32(sum[i] * sigScale / (1000 * cnt[i]))
			}
			sg.rows[y][i] = v
			lo, hi = min(lo, v), max(hi, v)
		}
		sg.textured[y] = hi-lo > texMin
	}
	return sg
}

// same reports whether row a of s and row b of t show the same thing.
func same(s, t signature, a, b int) bool {
	ra, rb := &s.rows[a], &t.rows[b]
	for i := range sigBins {
		if x := ra[i] - rb[i]; x > rowTol || x < -rowTol {
			return false
		}
	}
	return true
}

// moved reports whether t differs from s below the top band (a turning
// clock alone is no movement).
func moved(s, t signature) bool {
	if len(s.rows) != len(t.rows) {
		return true
	}
	for y := int(float64(len(s.rows)) * topBand); y < len(s.rows); y++ {
		if !same(s, t, y, y) {
			return true
		}
	}
	return false
}

// chrome is how many rows at the top and at the bottom belong to what
// did not scroll (status and navigation bars, a tab bar, the home
// indicator), bounded by headerMax and footerMax: the rows s and t share
// from each edge, and further to the farthest row with content that is
// the same in both (chrome over scrolling content, like iOS's home
// indicator). Erring large is harmless: those rows are then taken from
// the first page (header) or the last (footer) only; erring small would
// repeat chrome in the stitched image.
func chrome(s, t signature) (header, footer int) {
	h := len(s.rows)
	hmax, fmax := int(float64(h)*headerMax), int(float64(h)*footerMax)
	for header < hmax && same(s, t, header, header) {
		header++
	}
	for y := header; y < hmax; y++ {
		if s.textured[y] && t.textured[y] && same(s, t, y, y) {
			header = y + 1
		}
	}
	for footer < fmax && same(s, t, h-1-footer, h-1-footer) {
		footer++
	}
	for y := h - 1 - footer; y >= h-fmax; y-- {
		if s.textured[y] && t.textured[y] && same(s, t, y, y) {
			footer = h - y
		}
	}
	return header, footer
}

// overlap finds how many rows the content moved up from s to t between
// header and footer: the shift whose overlapping rows match best (at least
// matchMin of at least minTextured content rows), the one nearest expect
// among equals. ok is false when no shift matches.
func overlap(s, t signature, header, footer, expect int) (shift int, ok bool) {
	h := len(s.rows)
	area := h - header - footer
	if area <= 0 || len(t.rows) != h {
		return 0, false
	}
	bestScore, bestDist := -1.0, 0
	for sh := 1; sh <= area-int(float64(area)*minOverlap); sh++ {
		span := area - sh // rows of t compared: header .. header+span
		maxMiss := int(float64(span) * (1 - matchMin))
		n, miss := 0, 0
		for r := header; r < header+span; r++ {
			if !t.textured[r] && !s.textured[r+sh] {
				continue
			}
			n++
			if !same(s, t, r+sh, r) {
				if miss++; miss > maxMiss {
					break
				}
			}
		}
		if miss > maxMiss || n < minTextured {
			continue
		}
		score := 1 - float64(miss)/float64(n)
		if score < matchMin {
			continue
		}
		dist := abs(sh - expect)
		if score > bestScore || score == bestScore && dist < bestDist {
			bestScore, bestDist, shift = score, dist, sh
		}
	}
	return shift, bestScore >= 0
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Strip is rows Y0..Y1 (native pixels) of page Page of a full-page
// capture, a piece of the stitched image.
type Strip struct{ Page, Y0, Y1 int }

// stitchPlan is the stitched page as strips: the first page down to the
// footer, each later page's rows that scrolled in (the shift above the
// footer), and the last page's footer. height is the native frames'
// height; shifts[i] is page i's.
func stitchPlan(height, footer int, shifts []int) []Strip {
	bottom := height - footer
	strips := []Strip{{Page: 0, Y0: 0, Y1: bottom}}
	for i := 1; i < len(shifts); i++ {
		sh := min(shifts[i], bottom)
		if sh > 0 {
			strips = append(strips, Strip{Page: i, Y0: bottom - sh, Y1: bottom})
		}
	}
	if footer > 0 {
		strips = append(strips, Strip{Page: len(shifts) - 1, Y0: bottom, Y1: height})
	}
	return strips
}
