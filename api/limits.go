package api

import "time"

// Limits of the box's rules.
const (
	// CallsPerMinute is each client's sliding-window tool-call limit.
	CallsPerMinute = 120
	// LeaseTime is how long control lasts without a control call.
	LeaseTime = 90 * time.Second
	// FrameTTL is the oldest frame a touch may name.
	FrameTTL = 120 * time.Second
	// QueueLength is how many inputs may wait behind the running one.
	QueueLength = 16
	// MaxBody is the largest /mcp request body; larger is 413.
	MaxBody = 64 << 10
	// FrameCoalesce: at most one frame event per this.
	FrameCoalesce = 250 * time.Millisecond
)

// Argument limits and defaults, each stated once; [BoundOf] puts them in
// one table that the schemas and the checks read.
const (
	MaxText        = 500  // bytes of text per openlolo_type_text
	MaxURL         = 2048 // bytes of a URL
	MinURL         = 3
	MaxQuery       = 80  // bytes of an openlolo_apps query
	MaxAppRef      = 255 // bytes of a bundle id or app name
	MaxLinkName    = 40  // bytes of a deep link's name
	MaxLinkParams  = 16  // parameters of one deep link
	MaxCursor      = 64  // bytes of a watch cursor
	MaxFrameID     = 80  // bytes of a frame_id
	UUIDLen        = 36  // an operation_id: 8-4-4-4-12 hex digits
	MaxModifiers   = 4
	MinImageSize   = 128
	MaxImageSize   = 4096
	DefaultMaxSize = 1536 // longest side of a screenshot by default
	MaxSettle      = 5.0  // seconds
	// DefaultSettle is the wait before an input's observation.
	DefaultSettle = 0.5
	// StepsSettle is the wait before the observation of launch_app and
	// open_url, whose screens take longer to appear.
	StepsSettle          = 1.5
	MinGesture           = 0.03 // seconds of the shortest press or swipe
	MaxGesture           = 2.0  // seconds of the longest press, swipe or hold
	DefaultLongPress     = 1.0  // seconds
	DefaultSwipe         = 0.6  // seconds
	DefaultSwipeHold     = 0.0  // seconds
	DefaultWaitMS        = 25000
	MaxWaitMS            = 60000
	DefaultFormat        = FormatJPEG
	DefaultObserve       = true
	DefaultIncludeHidden = false
	// MaxSendText is openlolo_send_text's limit in characters (Unicode
	// code points, as JSON Schema's maxLength counts them).
	MaxSendText = 10000
	// MaxPages is openlolo_full_page's most pages, and its default.
	MaxPages = 20
	// MaxPageSize is the longest side of a full-page image.
	MaxPageSize = 2048
	// DefaultPageSettle is the wait after each of openlolo_full_page's
	// drags.
	DefaultPageSettle = 0.7
	DefaultPageOutput = OutputPages
	// DefaultElements and MaxElements are openlolo_elements' limit: its
	// default and largest value.
	DefaultElements = 50
	MaxElements     = 200
	// MaxElementID is the length of an element id ("e" and its number).
	MaxElementID = 8
	// DefaultClickableOnly: openlolo_elements lists every kept element.
	DefaultClickableOnly = false
	// FocusSettle is the wait after a type_text's tap on its element,
	// before the first key (the field takes the focus), in seconds.
	FocusSettle = 0.3
)

// Bound is what the contract says about one argument beyond its type:
// the inclusive range of a number (when Ranged), the length of a string
// or the number of a list's items (when set), a format, and the default
// that applies when the argument is left out (nil: none, or required).
type Bound struct {
	Ranged         bool
	Min, Max       float64
	MinLen, MaxLen int
	Format         string
	Default        any
	// Optional: the argument may be left out though its type makes it
	// required elsewhere (a tap's x and y, when element names the point).
	Optional bool
	// Unstated: the box checks the range or length, but the input schema
	// leaves it out, where it would only cost every caller's context
	// (ToolsListBudget): values the caller copies rather than writes (an
	// id from an answer, a cursor, a UUID, a bundle id or an app's or
	// link's name as a list gives it) and settle, which callers rarely
	// set. A value out of bounds is INVALID_ARGUMENTS naming them.
	Unstated bool
}

func ranged(lo, hi float64) Bound           { return Bound{Ranged: true, Min: lo, Max: hi} }
func rangedDef(lo, hi float64, d any) Bound { return Bound{Ranged: true, Min: lo, Max: hi, Default: d} }
func maxLen(n int) Bound                    { return Bound{MaxLen: n} }
func tokenBound(n int) Bound                { return Bound{MaxLen: n, Unstated: true} }
func uuidBound() Bound {
	return Bound{MinLen: UUIDLen, MaxLen: UUIDLen, Format: "uuid", Unstated: true}
}

// BoundOf is the table of argument bounds and defaults: what tool's
// argument arg (its JSON name) may be. ok is false for an argument with no
// bound beyond its type.
func BoundOf(tool Tool, arg string) (b Bound, ok bool) {
	switch arg {
	case "x", "y":
		b := ranged(0, 1)
		b.Optional = tool == ToolTap || tool == ToolLongPress
		return b, true
	case "x2", "y2":
		return ranged(0, 1), true
	case "element":
		return tokenBound(MaxElementID), true
	case "limit":
		return rangedDef(1, MaxElements, DefaultElements), true
	case "clickable_only":
		return Bound{Default: DefaultClickableOnly}, true
	case "frame_id":
		return tokenBound(MaxFrameID), true
	case "observe":
		return Bound{Default: DefaultObserve}, true
	case "settle":
		b := rangedDef(0, MaxSettle, DefaultSettle)
		switch tool {
		case ToolFullPage:
			b.Default = DefaultPageSettle
		case ToolLaunchApp, ToolOpenURL, ToolOpenLink:
			b.Default = StepsSettle
		}
		b.Unstated = true
		return b, true
	case "operation_id", "target":
		return uuidBound(), true
	case "seconds":
		if tool == ToolSwipe {
			return rangedDef(MinGesture, MaxGesture, DefaultSwipe), true
		}
		return rangedDef(MinGesture, MaxGesture, DefaultLongPress), true
	case "hold":
		return rangedDef(0, MaxGesture, DefaultSwipeHold), true
	case "text":
		if tool == ToolSendText {
			return Bound{MinLen: 1, MaxLen: MaxSendText}, true
		}
		return Bound{MinLen: 1, MaxLen: MaxText}, true
	case "modifiers":
		return maxLen(MaxModifiers), true
	case "url":
		return Bound{MinLen: MinURL, MaxLen: MaxURL}, true
	case "bundle_id", "name":
		return tokenBound(MaxAppRef), true
	case "link":
		return tokenBound(MaxLinkName), true
	case "query":
		return maxLen(MaxQuery), true
	case "include_hidden":
		return Bound{Default: DefaultIncludeHidden}, true
	case "cursor":
		return tokenBound(MaxCursor), true
	case "wait_ms":
		return rangedDef(0, MaxWaitMS, DefaultWaitMS), true
	case "max_pages":
		return rangedDef(1, MaxPages, MaxPages), true
	case "output":
		return Bound{Default: DefaultPageOutput}, true
	case "max_size":
		if tool == ToolFullPage {
			return rangedDef(MinImageSize, MaxPageSize, DefaultMaxSize), true
		}
		return rangedDef(MinImageSize, MaxImageSize, DefaultMaxSize), true
	case "format":
		return Bound{Default: DefaultFormat}, true
	}
	return Bound{}, false
}
