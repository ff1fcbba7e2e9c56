package sim

import (
	"image"
	"image/color"
	"image/draw"
	"net/url"
	"strings"
	"time"
)

// Colours of the simulated iOS look.
const (
	white     hexColor = 0xFFFFFF
	black     hexColor = 0x000000
	label     hexColor = 0x1C1C1E
	secondary hexColor = 0x8A8A8E
	separator hexColor = 0xD1D1D6
	grouped   hexColor = 0xF2F2F7
	blue      hexColor = 0x0A84FF
	notesTint hexColor = 0xE0A800
	fieldGray hexColor = 0xE3E3E8
	wallTop   hexColor = 0x1B2A6B
	wallBot   hexColor = 0x7A3B8F
)

// render draws the whole picture for state st at clock time now into a
// new image.
func (p *painter) render(u *ui, now time.Time) *image.RGBA {
	return p.renderInto(nil, u, now)
}

// renderInto draws the whole picture into dst, which it reuses when it has
// the screen's size (every screen paints all of its pixels, so nothing of
// dst's earlier picture shows), or into a new image otherwise; it returns
// the image drawn.
func (p *painter) renderInto(dst *image.RGBA, u *ui, now time.Time) *image.RGBA {
	l := u.lay
	if dst == nil || dst.Rect != (image.Rectangle{Max: l.size}) {
		dst = image.NewRGBA(image.Rectangle{Max: l.size})
	}
	p.dst = dst
	st := u.st
	if st.locked {
		p.fill(p.dst.Bounds(), black)
		return p.dst
	}
	dark := true
	switch st.screen {
	case screenHome:
		p.home(u)
	case screenSpotlight:
		p.spotlight(u)
	case "notes":
		p.notes(u)
		dark = false
	case "settings":
		p.settings(u)
		dark = false
	case "safari":
		p.safari(u)
		dark = false
	default:
		p.appScreen(u)
		dark = false
	}
	fg := label
	if dark {
		fg = white
	}
	p.statusBar(l, now, fg)
	if st.screen != screenHome {
		w, h := l.pxf(134), l.pxf(5)
		cx, y := float64(l.size.X)/2, float64(l.size.Y)-l.pxf(8)-h
		p.roundRect(cx-w/2, y, cx+w/2, y+h, h/2, fg)
	}
	if st.hud {
		p.volumeHUD(u)
	}
	return p.dst
}

func (p *painter) statusBar(l layout, now time.Time, fg color.Color) {
	s := l.s
	base := l.pxf(statusH/2 + 7)
	p.centered(now.Format("3:04"), true, 17*s, l.pxf(66), base, fg)
	// Signal bars, then the battery, right-aligned.
	right := float64(l.size.X) - l.pxf(28)
	bw, bh := l.pxf(25), l.pxf(12)
	by := base - l.pxf(11)
	p.roundRect(right-bw, by, right, by+bh, l.pxf(3.5), alpha(fg, 0.4))
	p.roundRect(right-bw+l.pxf(2), by+l.pxf(2), right-bw+l.pxf(2)+(bw-l.pxf(4))*0.8, by+bh-l.pxf(2), l.pxf(2), fg)
	p.roundRect(right+l.pxf(1), by+l.pxf(4), right+l.pxf(2.5), by+bh-l.pxf(4), l.pxf(1), alpha(fg, 0.4))
	x := right - bw - l.pxf(34)
	for i := range 4 {
		h := l.pxf(4 + 2.6*float64(i))
		p.roundRect(x+l.pxf(5*float64(i)), base-h, x+l.pxf(5*float64(i)+3.2), base, l.pxf(1), fg)
	}
}

func (p *painter) home(u *ui) {
	l := u.lay
	p.gradient(wallTop, wallBot)
	rects := l.iconRects(u.apps)
	for i, a := range u.apps {
		r := rects[i]
		p.icon(a, r)
		if !a.dock {
			p.centered(a.name, false, 12*l.s, float64(r.Min.X+r.Max.X)/2, float64(r.Max.Y)+l.pxf(17), white)
		}
	}
	d := l.dockRect()
	// The dock panel goes under the dock icons: draw it, then them again.
	p.roundRect(float64(d.Min.X), float64(d.Min.Y), float64(d.Max.X), float64(d.Max.Y), l.pxf(30), alpha(white, 0.22))
	for i, a := range u.apps {
		if a.dock {
			p.icon(a, rects[i])
		}
	}
	s := l.searchPill()
	p.roundRect(float64(s.Min.X), float64(s.Min.Y), float64(s.Max.X), float64(s.Max.Y), float64(s.Dy())/2, alpha(white, 0.22))
	cy := float64(s.Min.Y+s.Max.Y) / 2
	p.magnifier(float64(s.Min.X)+l.pxf(20), cy, l.s, white)
	p.text("Search", true, 14*l.s, float64(s.Min.X)+l.pxf(32), cy+l.pxf(5), white)
}

// icon draws an app icon: a coloured rounded square with a glyph. Icons
// are drawn once per app and size, then copied.
func (p *painter) icon(a app, r image.Rectangle) {
	k := iconKey{name: a.name, edge: r.Dx()}
	img, ok := p.icons[k]
	if !ok {
		dst := p.dst
		img = image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
		p.dst = img
		p.drawIcon(a, img.Bounds())
		p.dst = dst
		if len(p.icons) > 256 { // many sizes over time (SetSize): start over
			clear(p.icons)
		}
		p.icons[k] = img
	}
	draw.Draw(p.dst, r, img, image.Point{}, draw.Over)
}

// drawIcon draws a's icon into r of p.dst.
func (p *painter) drawIcon(a app, r image.Rectangle) {
	x0, y0, x1, y1 := float64(r.Min.X), float64(r.Min.Y), float64(r.Max.X), float64(r.Max.Y)
	edge := x1 - x0
	p.roundRect(x0, y0, x1, y1, edge*0.225, a.color)
	var fg color.Color = white
	if a.color == rgb(0xF2, 0xF2, 0xF7) {
		fg = rgb(0xFF, 0x3B, 0x30)
	}
	cx, cy := (x0+x1)/2, (y0+y1)/2
	switch a.name {
	case "Notes":
		p.roundRect(x0, y0, x1, y1, edge*0.225, white)
		p.roundRect(x0, y0, x1, y0+edge*0.6, edge*0.225, a.color)
		p.fill(image.Rect(r.Min.X, r.Min.Y+int(edge*0.3), r.Max.X, r.Min.Y+int(edge*0.6)+2), white)
		for i := range 3 {
			y := y0 + edge*(0.48+0.14*float64(i))
			p.fill(image.Rect(r.Min.X+int(edge*0.14), int(y), r.Max.X-int(edge*0.14), int(y+edge*0.035)), separator)
		}
		return
	case "Safari":
		p.circle(cx, cy, edge*0.38, white)
		p.circle(cx, cy, edge*0.34, a.color)
		n := edge * 0.3
		p.polygon(rgb(0xFF, 0x3B, 0x30), cx+n*0.7, cy-n*0.7, cx+n*0.12, cy+n*0.12, cx-n*0.12, cy-n*0.12)
		p.polygon(white, cx-n*0.7, cy+n*0.7, cx+n*0.12, cy+n*0.12, cx-n*0.12, cy-n*0.12)
		return
	case "Settings":
		p.circle(cx, cy, edge*0.36, rgb(0x63, 0x63, 0x66))
		for i := range 8 {
			ang := float64(i) * 3.14159265 / 4
			dx, dy := cosSin(ang)
			p.line(cx+dx*edge*0.22, cy+dy*edge*0.22, cx+dx*edge*0.39, cy+dy*edge*0.39, edge*0.1, rgb(0x63, 0x63, 0x66))
		}
		p.circle(cx, cy, edge*0.26, rgb(0xC7, 0xC7, 0xCC))
		p.circle(cx, cy, edge*0.1, rgb(0x63, 0x63, 0x66))
		return
	case "Clock":
		p.circle(cx, cy, edge*0.4, white)
		p.line(cx, cy, cx, cy-edge*0.28, edge*0.05, black)
		p.line(cx, cy, cx+edge*0.2, cy+edge*0.06, edge*0.05, black)
		p.circle(cx, cy, edge*0.04, rgb(0xFF, 0x95, 0x00))
		return
	case "Messages":
		p.roundRect(cx-edge*0.32, cy-edge*0.24, cx+edge*0.32, cy+edge*0.2, edge*0.22, white)
		p.polygon(white, cx-edge*0.2, cy+edge*0.1, cx-edge*0.26, cy+edge*0.32, cx-edge*0.05, cy+edge*0.16)
		return
	case "Phone":
		// A handset: earpiece and mouthpiece joined by a thick handle.
		e := edge
		p.line(cx-e*0.18, cy-e*0.18, cx+e*0.18, cy+e*0.18, e*0.16, white)
		p.roundRect(cx-e*0.32, cy-e*0.3, cx-e*0.1, cy-e*0.12, e*0.06, white)
		p.roundRect(cx+e*0.1, cy+e*0.12, cx+e*0.32, cy+e*0.3, e*0.06, white)
		return
	case "Photos":
		p.roundRect(x0, y0, x1, y1, edge*0.225, white)
		petals := []color.RGBA{rgb(0xFF, 0x9F, 0x0A), rgb(0xFF, 0xD6, 0x0A), rgb(0x30, 0xD1, 0x58), rgb(0x64, 0xD2, 0xFF), rgb(0x0A, 0x84, 0xFF), rgb(0xBF, 0x5A, 0xF2), rgb(0xFF, 0x37, 0x5F), rgb(0xFF, 0x45, 0x3A)}
		for i, c := range petals {
			dx, dy := cosSin(float64(i) * 3.14159265 / 4)
			p.circle(cx+dx*edge*0.17, cy+dy*edge*0.17, edge*0.14, alpha(c, 0.85))
		}
		return
	case "Calendar":
		p.roundRect(x0, y0, x1, y1, edge*0.225, white)
		p.centered("MON", true, edge*0.16, cx, y0+edge*0.28, fg)
		p.centered("17", false, edge*0.46, cx, y0+edge*0.8, label)
		return
	}
	letter := strings.ToUpper(a.name[:1])
	p.centered(letter, true, edge*0.55, cx, cy+edge*0.2, fg)
}

func (p *painter) magnifier(cx, cy, s float64, c color.Color) {
	p.ring(cx-s, cy-s, 5.5*s, 1.8*s, c)
	p.line(cx+2.5*s, cy+2.5*s, cx+6*s, cy+6*s, 2*s, c)
}

func (p *painter) spotlight(u *ui) {
	l := u.lay
	p.gradient(wallTop, wallBot)
	p.fill(p.dst.Bounds(), alpha(black, 0.5))
	f := l.fieldRect()
	p.roundRect(float64(f.Min.X), float64(f.Min.Y), float64(f.Max.X), float64(f.Max.Y), l.pxf(12), alpha(white, 0.2))
	cy := float64(f.Min.Y+f.Max.Y) / 2
	p.magnifier(float64(f.Min.X)+l.pxf(22), cy, l.s, white)
	tx, base := float64(f.Min.X)+l.pxf(40), cy+l.pxf(6)
	size := 17 * l.s
	q := p.ellipsize(u.st.query, false, size, float64(f.Dx())-l.pxf(60))
	if q == "" {
		p.text("Search", false, size, tx, base, alpha(white, 0.6))
	} else {
		p.text(q, false, size, tx, base, white)
	}
	cx := tx + p.width(q, false, size) + l.pxf(1)
	p.fill(image.Rect(int(cx), int(cy-l.pxf(11)), int(cx+l.pxf(2)), int(cy+l.pxf(11))), blue)

	res := search(u.apps, u.st.query)
	if u.st.query != "" && len(res) == 0 {
		p.centered("No Results", true, 20*l.s, float64(l.size.X)/2, l.pxf(resultTop+60), alpha(white, 0.7))
		return
	}
	n := min(len(res), l.maxResults())
	if n == 0 {
		return
	}
	first, last := l.resultRect(0), l.resultRect(n-1)
	p.text("Applications", true, 15*l.s, float64(first.Min.X)+l.pxf(4), float64(first.Min.Y)-l.pxf(8), alpha(white, 0.7))
	p.roundRect(float64(first.Min.X), float64(first.Min.Y), float64(last.Max.X), float64(last.Max.Y), l.pxf(14), alpha(white, 0.15))
	for i := range n {
		r := l.resultRect(i)
		e := l.px(40)
		ir := image.Rect(r.Min.X+l.px(12), (r.Min.Y+r.Max.Y)/2-e/2, r.Min.X+l.px(12)+e, (r.Min.Y+r.Max.Y)/2-e/2+e)
		p.icon(res[i], ir)
		p.text(res[i].name, false, 17*l.s, float64(ir.Max.X)+l.pxf(14), float64(r.Min.Y+r.Max.Y)/2+l.pxf(6), white)
		if i < n-1 {
			p.fill(image.Rect(ir.Max.X+l.px(14), r.Max.Y, r.Max.X, r.Max.Y+max(1, l.px(0.4))), alpha(white, 0.2))
		}
	}
}

func (p *painter) notes(u *ui) {
	l := u.lay
	p.fill(p.dst.Bounds(), white)
	size := 17 * l.s
	left := l.pxf(noteMargin)
	lines := u.noteLines()
	lh := l.pxf(noteLineH)
	top := l.pxf(noteTop)
	bottom := float64(l.size.Y) - l.pxf(homeEdge+10)
	nav := l.pxf(statusH + 44)
	off := float64(u.noteOffset())
	for i, line := range lines {
		y := top + lh*float64(i+1) - l.pxf(7) - off
		if y+lh < nav || y-lh > bottom {
			continue
		}
		p.text(line, i == 0, size, left, y, label)
	}
	last := lines[len(lines)-1]
	cx := left + p.width(last, len(lines) == 1, size)
	cy := top + lh*float64(len(lines)) - off
	if cy-lh >= nav && cy <= bottom {
		p.fill(image.Rect(int(cx+l.pxf(1)), int(cy-lh+l.pxf(2)), int(cx+l.pxf(3)), int(cy-l.pxf(1))), notesTint)
	}
	// The text scrolls under the navigation bar and stops at the bottom
	// edge: paint both over it.
	p.fill(image.Rect(0, 0, l.size.X, int(nav)), white)
	p.fill(image.Rect(0, int(bottom), l.size.X, l.size.Y), white)
	p.text("‹ Notes", false, 17*l.s, l.pxf(12), l.pxf(statusH+30), notesTint)
	p.text("Done", true, 17*l.s, float64(l.size.X)-l.pxf(58), l.pxf(statusH+30), notesTint)
}

// wrap breaks text into lines no wider than width, at spaces where it can
// and inside a word where it must; "\n" starts a new line. It always
// returns at least one (possibly empty) line.
func (p *painter) wrap(text string, size, width float64) []string {
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.SplitAfter(para, " ") {
			if p.width(line+word, false, size) <= width {
				line += word
				continue
			}
			if line != "" {
				lines = append(lines, line)
				line = ""
			}
			for _, r := range word {
				if p.width(line+string(r), false, size) > width && line != "" {
					lines = append(lines, line)
					line = ""
				}
				line += string(r)
			}
		}
		lines = append(lines, line)
	}
	return lines
}

func (p *painter) settings(u *ui) {
	l := u.lay
	p.fill(p.dst.Bounds(), grouped)
	off := float64(u.st.scroll)
	p.text("Settings", true, 34*l.s, l.pxf(18), l.pxf(settingsTop-30)-off, label)
	rows := settingsRows()
	size := 17 * l.s
	x0, x1 := l.pxf(16), float64(l.size.X)-l.pxf(16)
	for i, r := range rows {
		top, bottom := settingRowSpan(i, rows)
		y0, y1 := l.pxf(top)-off, l.pxf(bottom)-off
		if y1 < 0 || y0 > float64(l.size.Y) {
			continue
		}
		firstInGroup := i == 0 || rows[i-1].group != r.group
		lastInGroup := i == len(rows)-1 || rows[i+1].group != r.group
		rad := l.pxf(10)
		// A group is one white rounded panel: round only its ends.
		p.fill(image.Rect(int(x0), int(y0), int(x1), int(y1)+1), white)
		if firstInGroup {
			p.fill(image.Rect(int(x0), int(y0), int(x1), int(y0+rad)), grouped)
			p.roundRect(x0, y0, x1, y0+2*rad, rad, white)
		}
		if lastInGroup {
			p.fill(image.Rect(int(x0), int(y1-rad), int(x1), int(y1)+1), grouped)
			p.roundRect(x0, y1-2*rad, x1, y1, rad, white)
		} else {
			p.fill(image.Rect(int(x0+l.pxf(58)), int(y1)-max(1, l.px(0.4)), int(x1), int(y1)), separator)
		}
		cy := (y0 + y1) / 2
		e := l.pxf(29)
		p.roundRect(x0+l.pxf(14), cy-e/2, x0+l.pxf(14)+e, cy+e/2, l.pxf(7), r.color)
		p.centered(strings.ToUpper(r.name[:1]), true, 15*l.s, x0+l.pxf(14)+e/2, cy+l.pxf(5), white)
		p.text(r.name, false, size, x0+l.pxf(58), cy+l.pxf(6), label)
		if i == airplaneRow {
			p.toggle(l.switchRect(l.settingRowRect(i, rows, u.st.scroll)), u.st.airplane, l)
			continue
		}
		p.text("›", false, 22*l.s, x1-l.pxf(22), cy+l.pxf(7), secondary)
	}
	if u.st.scroll > 0 {
		bar := l.pxf(statusH + 44)
		p.fill(image.Rect(0, 0, l.size.X, int(bar)), grouped)
		p.fill(image.Rect(0, int(bar), l.size.X, int(bar)+max(1, l.px(0.4))), separator)
		p.centered("Settings", true, 17*l.s, float64(l.size.X)/2, l.pxf(statusH+28), label)
	}
}

// toggle draws an iOS switch in r: green with the knob right when on,
// grey with it left when off.
func (p *painter) toggle(r image.Rectangle, on bool, l layout) {
	x0, y0, x1, y1 := float64(r.Min.X), float64(r.Min.Y), float64(r.Max.X), float64(r.Max.Y)
	h := y1 - y0
	track := color.Color(separator)
	if on {
		track = rgb(0x34, 0xC7, 0x59)
	}
	p.roundRect(x0, y0, x1, y1, h/2, track)
	k := l.pxf(2)
	kx := x0 + k
	if on {
		kx = x1 - h + k
	}
	p.roundRect(kx, y0+k, kx+h-2*k, y1-k, (h-2*k)/2, white)
}

func (p *painter) safari(u *ui) {
	l := u.lay
	st := u.st
	p.fill(p.dst.Bounds(), white)
	f := l.fieldRect()
	fx0, fy0, fx1, fy1 := float64(f.Min.X), float64(f.Min.Y), float64(f.Max.X), float64(f.Max.Y)
	cy := (fy0 + fy1) / 2
	size := 17 * l.s
	if st.editing {
		p.roundRect(fx0, fy0, fx1, fy1, l.pxf(12), fieldGray)
		p.roundRect(fx0, fy0, fx1, fy1, l.pxf(12), alpha(blue, 0.06))
		tx := fx0 + l.pxf(14)
		t := p.ellipsize(st.url, false, size, fx1-fx0-l.pxf(40))
		tw := p.width(t, false, size)
		switch {
		case t == "":
			p.text("Search or enter website name", false, size, tx, cy+l.pxf(6), secondary)
		case st.selAll:
			p.fill(image.Rect(int(tx), int(cy-l.pxf(12)), int(tx+tw), int(cy+l.pxf(12))), alpha(blue, 0.25))
			p.text(t, false, size, tx, cy+l.pxf(6), label)
		default:
			p.text(t, false, size, tx, cy+l.pxf(6), label)
		}
		if !st.selAll {
			cx := tx + tw + l.pxf(1)
			p.fill(image.Rect(int(cx), int(cy-l.pxf(11)), int(cx+l.pxf(2)), int(cy+l.pxf(11))), blue)
		}
	} else {
		p.roundRect(fx0, fy0, fx1, fy1, l.pxf(12), fieldGray)
		host := "Search or enter website name"
		c := secondary
		if st.page != "" {
			host, c = pageHost(st.page), label
		}
		p.text("aA", false, 15*l.s, fx0+l.pxf(12), cy+l.pxf(5), label)
		p.centered(p.ellipsize(host, false, size, fx1-fx0-l.pxf(90)), false, size, (fx0+fx1)/2, cy+l.pxf(6), c)
	}
	top := fy1 + l.pxf(24)
	left := l.pxf(20)
	if st.page == "" {
		p.text("Favorites", true, 22*l.s, left, top+l.pxf(24), label)
		for i, name := range []string{"Apple", "Wikipedia", "GitHub", "News"} {
			x := left + l.pxf(90*float64(i))
			e := l.pxf(64)
			p.roundRect(x, top+l.pxf(44), x+e, top+l.pxf(44)+e, l.pxf(14), rgb(0xE5, 0xE5, 0xEA))
			p.centered(name[:1], true, 30*l.s, x+e/2, top+l.pxf(44)+e/2+l.pxf(10), secondary)
			p.centered(name, false, 12*l.s, x+e/2, top+l.pxf(44)+e+l.pxf(18), label)
		}
		return
	}
	p.text(p.ellipsize(pageHost(st.page), true, 28*l.s, float64(l.size.X)-2*left), true, 28*l.s, left, top+l.pxf(34), label)
	lines := p.wrap(st.page, 15*l.s, float64(l.size.X)-2*left)
	y := top + l.pxf(64)
	for _, ln := range lines {
		p.text(ln, false, 15*l.s, left, y, blue)
		y += l.pxf(20)
	}
	y += l.pxf(10)
	for _, ln := range p.wrap("This page is shown by the simulated phone. No network request was made.", 17*l.s, float64(l.size.X)-2*left) {
		p.text(ln, false, 17*l.s, left, y+l.pxf(10), label)
		y += l.pxf(24)
	}
	for i := range 6 {
		w := []float64{1, 0.92, 0.97, 0.6, 0.85, 0.4}[i]
		y0 := y + l.pxf(30+22*float64(i))
		p.roundRect(left, y0, left+(float64(l.size.X)-2*left)*w, y0+l.pxf(10), l.pxf(5), rgb(0xE5, 0xE5, 0xEA))
	}
}

// pageHost is the host name Safari shows for a loaded URL.
func pageHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return strings.TrimPrefix(u.Host, "www.")
}

func (p *painter) appScreen(u *ui) {
	l := u.lay
	p.fill(p.dst.Bounds(), white)
	var a app
	for _, x := range u.apps {
		if appKey(x) == u.st.screen {
			a = x
		}
	}
	p.text(a.name, true, 34*l.s, l.pxf(18), l.pxf(statusH+52), label)
	e := l.px(120)
	cx, cy := l.size.X/2, l.size.Y/2-l.px(40)
	p.icon(a, image.Rect(cx-e/2, cy-e/2, cx-e/2+e, cy-e/2+e))
	p.centered(a.name, true, 22*l.s, float64(cx), float64(cy+e/2)+l.pxf(40), label)
	p.centered("This app is simulated.", false, 15*l.s, float64(cx), float64(cy+e/2)+l.pxf(66), secondary)
}

func (p *painter) volumeHUD(u *ui) {
	l := u.lay
	x0, y0 := l.pxf(10), l.pxf(180)
	w, h := l.pxf(14), l.pxf(150)
	p.roundRect(x0, y0, x0+w, y0+h, w/2, alpha(rgb(0x3A, 0x3A, 0x3C), 0.85))
	v := float64(u.st.volume) / maxVol
	if u.st.muted {
		v = 0
	}
	if v > 0 {
		p.roundRect(x0, y0+h*(1-v), x0+w, y0+h, w/2, white)
	}
	if u.st.muted {
		pw, ph := l.pxf(150), l.pxf(36)
		cx, y := float64(l.size.X)/2, l.pxf(statusH+8)
		p.roundRect(cx-pw/2, y, cx+pw/2, y+ph, ph/2, alpha(rgb(0x3A, 0x3A, 0x3C), 0.92))
		p.centered("Silent Mode", true, 15*l.s, cx, y+ph/2+l.pxf(5), rgb(0xFF, 0x45, 0x3A))
	}
}
