package sim

import (
	"image"
	"math"
	"strings"
	"time"
)

// Gesture thresholds in points and time: a tap is a contact released
// within tapTime that moved less than tapSlop; anything else is a swipe,
// which counts when it travelled at least swipeMin.
const (
	tapSlop  = 10.0
	tapTime  = 300 * time.Millisecond
	swipeMin = 60.0
	maxVol   = 16
)

// HID usages the phone's UI reacts to (keyboard page 0x07, consumer page
// 0x0C).
const (
	keyH         = 0x0B
	keyL         = 0x0F
	keyV         = 0x19
	keyEnter     = 0x28
	keyEscape    = 0x29
	keyBackspace = 0x2A
	keySpace     = 0x2C

	modCtrl  = 0x11 // left or right Control
	modShift = 0x22
	modAlt   = 0x44
	modGUI   = 0x88 // ⌘

	consPower   = 0x30
	consMute    = 0xE2
	consVolUp   = 0xE9
	consVolDown = 0xEA
	consSearch  = 0x221
	consHome    = 0x223
)

// Screen names that [Phone.Screen] reports besides apps.
const (
	screenHome      = "home"
	screenSpotlight = "spotlight"
	screenLocked    = "locked"
)

// state is everything the picture shows (but the clock). It is comparable:
// two equal states render the same pixels under the same clock minute.
type state struct {
	screen string // screenHome, screenSpotlight, or an app's key
	locked bool
	query  string // Spotlight
	note   string // Notes
	// noteScroll is how far the note is scrolled, in pixels, once
	// noteFree: a drag or a tap on the status bar set it. Otherwise the
	// note follows its caret (scrolled to the end), as after typing.
	noteScroll int
	noteFree   bool
	scroll     int    // Settings, in pixels
	airplane   bool   // Settings' Airplane Mode switch is on
	url        string // Safari's address field while editing
	page       string // Safari's loaded URL
	editing    bool   // Safari's address field has focus
	selAll     bool   // the address field's text is selected: typing replaces it
	volume     int    // 0..maxVol
	muted      bool
	hud        bool // the volume HUD is showing
}

// contact is the pointer's tracking state between reports.
type contact struct {
	down    bool
	x, y    float64 // now, pixels
	sx, sy  float64 // at touch down
	maxDist float64 // farthest from the start, pixels
	start   time.Time
	swallow bool // this contact woke the phone: ignore it
}

// ui is the simulated phone's state machine: logical input events in,
// state out. It is not safe for concurrent use; Phone guards it.
type ui struct {
	apps []app
	lay  layout
	st   state
	ptr  contact
	// clip is the phone's clipboard (not part of the picture).
	clip string
	// wrap breaks text into lines no wider than width at font size
	// (the painter's); nil counts every text as one line.
	wrap func(text string, size, width float64) []string
}

func newUI(apps []app, size image.Point) *ui {
	return &ui{apps: apps, lay: newLayout(size), st: state{screen: screenHome, volume: maxVol / 2}}
}

// appKey is the screen name of an app: its name in lower case.
func appKey(a app) string { return strings.ToLower(a.name) }

// wake handles the first input after Lock: it unlocks the phone and
// reports true when the input must be swallowed.
func (u *ui) wake() bool {
	if !u.st.locked {
		return false
	}
	u.st.locked = false
	return true
}

func (u *ui) goHome() { u.show(screenHome) }

func (u *ui) spotlight() { u.show(screenSpotlight) }

// show switches to screen, dropping Spotlight's query and the address
// field's focus.
func (u *ui) show(screen string) {
	u.st.screen = screen
	u.st.query = ""
	u.st.editing = false
	u.st.selAll = false
}

// open shows app a. Safari without a page opens with the address field
// focused, ready for a URL.
func (u *ui) open(a app) {
	u.show(appKey(a))
	if a.name == "Safari" && u.st.page == "" {
		u.focusAddress()
	}
}

// focusAddress gives Safari's address field the focus with the page's URL
// selected, as a tap on it or cmd+L does.
func (u *ui) focusAddress() {
	u.st.editing = true
	u.st.url = u.st.page
	u.st.selAll = u.st.page != ""
}

// pointer takes one pointer report: the position in pixels and whether
// the contact (button or tip switch) is down.
func (u *ui) pointer(x, y float64, down bool, at time.Time) {
	p := &u.ptr
	p.x, p.y = x, y
	switch {
	case down && !p.down:
		u.st.hud = false
		*p = contact{down: true, x: x, y: y, sx: x, sy: y, start: at, swallow: u.wake()}
	case down && p.down:
		p.maxDist = math.Max(p.maxDist, math.Hypot(x-p.sx, y-p.sy))
	case !down && p.down:
		p.down = false
		p.maxDist = math.Max(p.maxDist, math.Hypot(x-p.sx, y-p.sy))
		if p.swallow {
			return
		}
		if p.maxDist <= u.lay.pxf(tapSlop) && at.Sub(p.start) <= tapTime {
			u.tap(p.sx, p.sy)
			return
		}
		u.swipe(p.sx, p.sy, x-p.sx, y-p.sy)
	}
}

// release ends a contact without a gesture (ReleaseAll after a failure).
func (u *ui) cancelContact() { u.ptr.down = false }

func (u *ui) tap(x, y float64) {
	pt := image.Pt(int(x), int(y))
	switch {
	case pt.Y < u.lay.px(statusH) && u.st.screen == "notes":
		// as on iOS, a tap on the status bar scrolls to the top
		u.st.noteScroll, u.st.noteFree = 0, true
	case pt.Y < u.lay.px(statusH) && u.st.screen == "settings":
		u.st.scroll = 0
	case u.st.screen == "settings":
		rows := settingsRows()
		if pt.In(u.lay.switchRect(u.lay.settingRowRect(airplaneRow, rows, u.st.scroll)).Inset(-u.lay.px(6))) {
			u.st.airplane = !u.st.airplane
		}
	case u.st.screen == screenHome:
		for i, r := range u.lay.iconRects(u.apps) {
			hit := r.Inset(-u.lay.px(6))
			if !u.apps[i].dock {
				// as on iOS, the label under a grid icon opens the app too
				hit.Max.Y = r.Max.Y + u.lay.px(labelHit)
			}
			if pt.In(hit) {
				u.open(u.apps[i])
				return
			}
		}
		if pt.In(u.lay.searchPill()) {
			u.spotlight()
		}
	case u.st.screen == screenSpotlight:
		res := search(u.apps, u.st.query)
		for i := 0; i < len(res) && i < u.lay.maxResults(); i++ {
			if pt.In(u.lay.resultRect(i)) {
				u.open(res[i])
				return
			}
		}
		if !pt.In(u.lay.fieldRect()) && pt.Y > u.lay.px(statusH) && len(res) == 0 {
			u.goHome()
		}
	case u.st.screen == "safari":
		if pt.In(u.lay.fieldRect()) {
			if !u.st.editing {
				u.focusAddress()
			}
		} else {
			u.st.editing = false
			u.st.selAll = false
		}
	}
}

func (u *ui) swipe(sx, sy, dx, dy float64) {
	min := u.lay.pxf(swipeMin)
	vertical := math.Abs(dy) > math.Abs(dx)
	switch {
	case sy >= float64(u.lay.size.Y)-u.lay.pxf(homeEdge) && dy <= -min && vertical:
		u.goHome()
	case u.st.screen == screenHome && sy > u.lay.pxf(statusH) && dy >= min && vertical:
		u.spotlight()
	case u.st.screen == "settings" && vertical:
		u.st.scroll = clamp(u.st.scroll-int(math.Round(dy)), 0, u.maxScroll())
	case u.st.screen == "notes" && vertical:
		// the text follows the finger exactly: no momentum
		u.st.noteScroll = clamp(u.noteOffset()-int(math.Round(dy)), 0, u.maxNoteScroll())
		u.st.noteFree = true
	}
}

// noteLines is the note wrapped as Notes draws it.
func (u *ui) noteLines() []string {
	if u.wrap == nil {
		return strings.Split(u.st.note, "\n")
	}
	l := u.lay
	return u.wrap(u.st.note, 17*l.s, float64(l.size.X)-2*l.pxf(noteMargin))
}

// maxNoteScroll is how far the note scrolls, in pixels: until its last
// line sits at the bottom of the text area.
func (u *ui) maxNoteScroll() int {
	l := u.lay
	view := float64(l.size.Y) - l.pxf(homeEdge+10) - l.pxf(noteTop)
	return max(0, int(math.Ceil(l.pxf(noteLineH)*float64(len(u.noteLines()))-view)))
}

// noteOffset is how far the note is scrolled now, in pixels.
func (u *ui) noteOffset() int {
	m := u.maxNoteScroll()
	if !u.st.noteFree {
		return m
	}
	return min(u.st.noteScroll, m)
}

// paste inserts the clipboard into the focused field (cmd+V).
func (u *ui) paste() {
	switch {
	case u.st.screen == screenSpotlight:
		u.st.query += u.clip
	case u.st.screen == "notes":
		u.st.note += u.clip
		u.st.noteFree = false
	case u.st.screen == "safari" && u.st.editing:
		if u.st.selAll {
			u.st.url = ""
		}
		u.st.selAll = false
		u.st.url += u.clip
	}
}

// maxScroll is how far the Settings list scrolls, in pixels.
func (u *ui) maxScroll() int {
	rows := settingsRows()
	_, bottom := settingRowSpan(len(rows)-1, rows)
	return max(0, u.lay.px(bottom+40)-u.lay.size.Y)
}

// key takes a newly pressed key (keyboard usage) with the modifier byte
// held at that moment.
func (u *ui) key(usage uint8, mods uint8) {
	u.st.hud = false
	if u.wake() && !(mods&modGUI != 0 && usage == keyH) {
		return // the key woke the phone; only Home goes on
	}
	if mods&modGUI != 0 {
		switch usage {
		case keySpace:
			u.spotlight()
		case keyH:
			u.goHome()
		case keyL:
			if u.st.screen == "safari" {
				u.focusAddress()
			}
		case keyV:
			u.paste()
		}
		return
	}
	if mods&(modCtrl|modAlt) != 0 {
		return
	}
	r, printable := usRune(usage, mods&modShift != 0)
	switch {
	case u.st.screen == screenSpotlight:
		switch {
		case printable:
			u.st.query += string(r)
		case usage == keyBackspace:
			u.st.query = dropLast(u.st.query)
		case usage == keyEnter:
			if res := search(u.apps, u.st.query); len(res) > 0 {
				u.open(res[0])
			}
		case usage == keyEscape:
			u.goHome()
		}
	case u.st.screen == "notes":
		if printable || usage == keyBackspace || usage == keyEnter {
			u.st.noteFree = false // typing scrolls to the caret
		}
		switch {
		case printable:
			u.st.note += string(r)
		case usage == keyBackspace:
			u.st.note = dropLast(u.st.note)
		case usage == keyEnter:
			u.st.note += "\n"
		}
	case u.st.screen == "safari" && u.st.editing:
		if u.st.selAll && (printable || usage == keyBackspace) {
			u.st.url = ""
		}
		u.st.selAll = false
		switch {
		case printable:
			u.st.url += string(r)
		case usage == keyBackspace:
			u.st.url = dropLast(u.st.url)
		case usage == keyEnter:
			if strings.TrimSpace(u.st.url) != "" {
				u.st.page = normalizeURL(u.st.url)
				u.st.editing = false
			}
		case usage == keyEscape:
			u.st.editing = false
		}
	}
}

// consumer takes a newly pressed consumer-control usage.
func (u *ui) consumer(usage uint16) {
	if usage == consPower {
		u.st.hud = false
		u.ptr.down = false
		if !u.wake() {
			u.st.locked = true
		}
		return
	}
	switch usage {
	case consVolUp:
		u.wake()
		u.st.volume = min(u.st.volume+1, maxVol)
		u.st.muted = false
		u.st.hud = true
		return
	case consVolDown:
		u.wake()
		u.st.volume = max(u.st.volume-1, 0)
		u.st.hud = true
		return
	case consMute:
		u.wake()
		u.st.muted = !u.st.muted
		u.st.hud = true
		return
	}
	u.st.hud = false
	woke := u.wake()
	switch usage {
	case consHome:
		u.goHome()
	case consSearch:
		if !woke {
			u.spotlight()
		}
	}
}

// normalizeURL turns what was typed into the address bar into the URL a
// browser would load: a scheme is added when missing.
func normalizeURL(s string) string {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "://") {
		return s
	}
	if !strings.Contains(s, ".") || strings.Contains(s, " ") {
		return "https://www.google.com/search?q=" + strings.ReplaceAll(s, " ", "+")
	}
	return "https://" + s
}

func dropLast(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return string(r[:len(r)-1])
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }
