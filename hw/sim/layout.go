package sim

import (
	"image"
	"math"
)

// Layout constants in iPhone points (the default screen is 393×852 points
// at 3 pixels per point). Everything scales so that 393×852 points fit the
// screen.
const (
	pointsWide  = 393.0
	pointsHigh  = 852.0
	statusH     = 54.0  // status bar height
	iconSize    = 62.0  // home-screen icon edge
	gridTop     = 78.0  // top of the first icon row
	rowPitch    = 104.0 // distance between icon rows
	dockH       = 96.0  // dock panel height
	dockMargin  = 12.0  // dock panel inset from the screen edges
	fieldTop    = 62.0  // search/address field top
	fieldH      = 44.0  // search/address field height
	resultTop   = 150.0 // first Spotlight result row top
	resultH     = 60.0  // Spotlight result row height
	settingsTop = 150.0 // first Settings row top (unscrolled)
	settingRowH = 50.0  // Settings row height
	settingsGap = 34.0  // gap between Settings groups
	noteTop     = 150.0 // first line of the note
	noteLineH   = 26.0  // note line height
	noteMargin  = 20.0  // note side margins
	homeEdge    = 34.0  // bottom edge band where a swipe up means Home
	labelHit    = 28.0  // how far below a grid icon its label still opens it
)

// layout places things on a screen of a given size in pixels.
type layout struct {
	size image.Point
	s    float64 // pixels per point
}

func newLayout(size image.Point) layout {
	return layout{size: size, s: min(float64(size.X)/pointsWide, float64(size.Y)/pointsHigh)}
}

// px converts points to pixels.
func (l layout) px(pt float64) int { return int(math.Round(pt * l.s)) }

// pxf converts points to pixels without rounding.
func (l layout) pxf(pt float64) float64 { return pt * l.s }

// heightPt is the screen height in points.
func (l layout) heightPt() float64 { return float64(l.size.Y) / l.s }

// columnX is the centre in pixels of icon column c of 4.
func (l layout) columnX(c int) float64 { return float64(l.size.X) * float64(2*c+1) / 8 }

// dockRect is the dock panel.
func (l layout) dockRect() image.Rectangle {
	return image.Rect(l.px(dockMargin), l.size.Y-l.px(dockMargin+dockH), l.size.X-l.px(dockMargin), l.size.Y-l.px(dockMargin))
}

// searchPill is the "Search" pill above the dock that opens Spotlight.
func (l layout) searchPill() image.Rectangle {
	d := l.dockRect()
	w, h := l.px(96), l.px(32)
	cx := l.size.X / 2
	return image.Rect(cx-w/2, d.Min.Y-l.px(18)-h, cx+w/2, d.Min.Y-l.px(18))
}

// iconRects returns the icon square of every app of apps, in order.
func (l layout) iconRects(apps []app) []image.Rectangle {
	rects := make([]image.Rectangle, len(apps))
	grid, dock := 0, 0
	edge := l.px(iconSize)
	d := l.dockRect()
	for i, a := range apps {
		var cx, top int
		if a.dock {
			cx = int(math.Round(l.columnX(dock)))
			top = (d.Min.Y+d.Max.Y)/2 - edge/2
			dock++
		} else {
			cx = int(math.Round(l.columnX(grid % 4)))
			top = l.px(gridTop + rowPitch*float64(grid/4))
			grid++
		}
		rects[i] = image.Rect(cx-edge/2, top, cx-edge/2+edge, top+edge)
	}
	return rects
}

// fieldRect is the Spotlight search field and Safari's address bar.
func (l layout) fieldRect() image.Rectangle {
	return image.Rect(l.px(16), l.px(fieldTop), l.size.X-l.px(16), l.px(fieldTop+fieldH))
}

// resultRect is Spotlight result row i.
func (l layout) resultRect(i int) image.Rectangle {
	top := l.px(resultTop + resultH*float64(i))
	return image.Rect(l.px(16), top, l.size.X-l.px(16), top+l.px(resultH))
}

// maxResults is how many Spotlight rows fit above the bottom edge.
func (l layout) maxResults() int {
	n := int((l.heightPt() - resultTop - homeEdge) / resultH)
	return max(n, 1)
}
