package api

import "encoding/json"

// One struct per tool's result: the tool's own members of a successful
// answer, beside the [Outcome] every answer carries.

// StatusResult is openlolo_status's result.
type StatusResult struct {
	Box       BoxInfo     `json:"box"`
	Phone     PhoneStatus `json:"phone"`
	Control   Lease       `json:"control"`
	Paused    bool        `json:"paused"`
	You       You         `json:"you"`
	CallsLeft int         `json:"calls_left" desc:"Tool calls you may still make this minute (-1: no limit)."`
	Remote    RemoteEntry `json:"remote"`
}

// BoxInfo names the box.
type BoxInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// PhoneStatus is the phone as openlolo_status reports it.
type PhoneStatus struct {
	Backend       Backend    `json:"backend"`
	Model         string     `json:"model"`
	Platform      Platform   `json:"platform"`
	Ready         bool       `json:"ready"`
	State         PhoneState `json:"state" desc:"ready, no_udc, not_configured, no_video, detached, closed, pairing, no_usbmuxd, no_tunnel, developer_mode_off or ddi_not_mounted."`
	Reason        string     `json:"reason" desc:"Why the phone is not ready, as a sentence."`
	Width         int        `json:"width"`
	Height        int        `json:"height"`
	GeometryEpoch string     `json:"geometry_epoch"`
}

// Lease is who holds control.
type Lease struct {
	Held      bool   `json:"held"`
	YouHold   bool   `json:"you_hold"`
	Holder    string `json:"holder" desc:"The holder's client name."`
	ExpiresMS int64  `json:"expires_ms" desc:"When control lapses (Unix ms; 0 when free)."`
}

// You is the calling client as the box knows it.
type You struct {
	ClientID       string   `json:"client_id"`
	ClientName     string   `json:"client_name"`
	Scopes         []string `json:"scopes"`
	Entry          string   `json:"entry"`
	GrantExpiresMS int64    `json:"grant_expires_ms" desc:"When the grant ends (Unix ms; 0: until removed)."`
}

// RemoteEntry is the box's remote (tailnet) entry.
type RemoteEntry struct {
	State  string `json:"state"`
	Reason string `json:"reason"`
	URL    string `json:"url"`
}

// CapabilitiesResult is openlolo_capabilities's result.
type CapabilitiesResult struct {
	Platform    Platform            `json:"platform"`
	Backend     Backend             `json:"backend"`
	Keyboard    bool                `json:"keyboard"`
	Touch       bool                `json:"touch"`
	Screenshot  bool                `json:"screenshot"`
	Buttons     []Button            `json:"buttons"`
	Keys        []string            `json:"keys"`
	Modifiers   []Modifier          `json:"modifiers"`
	TypeText    TextCapability      `json:"type_text"`
	Gestures    GestureCapability   `json:"gestures"`
	Screenshots ImageCapability     `json:"screenshots"`
	LaunchApp   bool                `json:"launch_app"`
	OpenURL     []string            `json:"open_url" desc:"URL schemes openlolo_open_url opens (* for any)."`
	Native      NativeCapability    `json:"native" desc:"What the phone does itself; the rest the box does with keyboard recipes."`
	Shortcuts   []Shortcut          `json:"shortcuts" desc:"The shortcuts openlolo_shortcut performs on this phone."`
	Clipboard   ClipboardCapability `json:"clipboard" desc:"Whether openlolo_send_text and openlolo_clipboard are offered."`
}

// ClipboardCapability says whether the box can set and read this phone's
// clipboard and paste it: openlolo_send_text and openlolo_clipboard are on
// the tool list only when Available.
type ClipboardCapability struct {
	Available bool   `json:"available"`
	MaxChars  int    `json:"max_chars" desc:"openlolo_send_text's limit in characters."`
	Paste     string `json:"paste" desc:"The keys that paste (cmd+v on iOS, ctrl+v on Android); empty when not available."`
	Reason    string `json:"reason" desc:"Why not, when not available."`
}

// NativeCapability is what the phone's backend does itself.
type NativeCapability struct {
	LaunchApp bool `json:"launch_app" desc:"Opens an app by bundle id."`
	OpenURL   bool `json:"open_url" desc:"Opens a URL of any scheme."`
	Clipboard bool `json:"clipboard" desc:"Sets and reads the clipboard."`
}

// TextCapability is what openlolo_type_text takes.
type TextCapability struct {
	MaxChars int    `json:"max_chars"`
	Charset  string `json:"charset"`
}

// GestureCapability gives the gesture ranges in seconds ([min, max]).
type GestureCapability struct {
	Tap              bool      `json:"tap"`
	LongPressSeconds []float64 `json:"long_press_seconds"`
	SwipeSeconds     []float64 `json:"swipe_seconds"`
	SwipeHold        []float64 `json:"swipe_hold"`
	Multitouch       bool      `json:"multitouch"`
}

// ImageCapability gives the screenshot formats and sizes.
type ImageCapability struct {
	Formats        []ImageFormat `json:"formats"`
	MaxSize        []int         `json:"max_size"`
	DefaultMaxSize int           `json:"default_max_size"`
}

// Frame is a screenshot as sent: what touch tools must name, and its size.
type Frame struct {
	FrameID       string      `json:"frame_id"`
	GeometryEpoch string      `json:"geometry_epoch"`
	Width         int         `json:"width" desc:"Width of the returned image in pixels."`
	Height        int         `json:"height"`
	NativeWidth   int         `json:"native_width" desc:"The phone screen's own width in pixels."`
	NativeHeight  int         `json:"native_height"`
	AgeMS         int64       `json:"age_ms" desc:"How old the picture is."`
	Format        ImageFormat `json:"format"`
}

// ScreenshotResult is openlolo_screenshot's result.
type ScreenshotResult = Frame

// TextBox is a piece of text OCR found on the screen, placed as fractions
// of the frame the answer names (0..1, from the top left).
type TextBox struct {
	Text       string  `json:"text"`
	Confidence float64 `json:"confidence" desc:"The OCR engine's confidence, 0..1."`
	X          float64 `json:"x" desc:"Left edge, a fraction of the frame's width."`
	Y          float64 `json:"y" desc:"Top edge, a fraction of the frame's height."`
	Width      float64 `json:"width"`
	Height     float64 `json:"height"`
	CenterX    float64 `json:"center_x" desc:"Where to tap it: pass center_x and center_y with the answer's frame_id."`
	CenterY    float64 `json:"center_y"`
}

// FindTextResult is openlolo_find_text's result. The screenshot it read
// becomes the caller's latest frame, so its frame_id goes straight into a
// tap.
type FindTextResult struct {
	FrameID       string    `json:"frame_id"`
	GeometryEpoch string    `json:"geometry_epoch"`
	Query         string    `json:"query"`
	Matches       []TextBox `json:"matches" desc:"With a query: the text that contains it, top to bottom (the shortest run of words of each line that does)."`
	Lines         []TextBox `json:"lines" desc:"Without a query: every line of text on the screen, top to bottom."`
	Engine        string    `json:"engine" desc:"The OCR engine that read the screen."`
}

// App is an app the box can launch.
type App struct {
	BundleID string `json:"bundle_id"`
	Name     string `json:"name"`
}

// AppsResult is openlolo_apps's result.
type AppsResult struct {
	Apps    []App  `json:"apps"`
	Query   string `json:"query"`
	Matched int    `json:"matched"`
}

// DeviceInfoResult is openlolo_device_info's result.
type DeviceInfoResult struct {
	Model        string     `json:"model"`
	Platform     Platform   `json:"platform"`
	Backend      Backend    `json:"backend"`
	NativeWidth  int        `json:"native_width"`
	NativeHeight int        `json:"native_height"`
	Ready        bool       `json:"ready"`
	State        PhoneState `json:"state"`
	Reason       string     `json:"reason"`
}

// Operation is the journal's record of one operation.
type Operation struct {
	ID        string `json:"id"`
	Tool      Tool   `json:"tool"`
	State     string `json:"state" desc:"queued, dispatched, succeeded, failed, cancelled or outcome_unknown."`
	Code      Code   `json:"code"`
	CreatedMS int64  `json:"created_ms"`
	UpdatedMS int64  `json:"updated_ms"`
	// Answer is the answer the box gave, as stored: the answer of
	// whichever tool Tool names, so its shape is that tool's.
	Answer json.RawMessage `json:"answer,omitempty" desc:"The stored answer, in the shape of that tool's answer."`
}

// OperationStatusResult is openlolo_operation_status's result.
type OperationStatusResult struct {
	Operation Operation `json:"operation"`
}

// WatchResult is openlolo_watch's result.
type WatchResult struct {
	Events []Event `json:"events"`
	Cursor string  `json:"cursor"`
	// Ended is "grant_revoked" when the watch ended because the caller's
	// grant was revoked.
	Ended string `json:"ended,omitempty"`
}

// PauseResult is openlolo_pause's result.
type PauseResult struct {
	Paused bool `json:"paused"`
}

// ControlResult is openlolo_control's result.
type ControlResult struct {
	Control Lease `json:"control"`
	Paused  bool  `json:"paused"`
}

// CancelResult is openlolo_cancel's result.
type CancelResult struct {
	Target  string `json:"target"`
	Was     string `json:"was" desc:"The target's state when the cancel arrived."`
	Stopped bool   `json:"stopped" desc:"true: it was queued or running and was stopped."`
}

// InputResult is an input tool's result: how the input was delivered and
// the observation taken after it.
type InputResult struct {
	Observation      *Frame   `json:"observation,omitempty" desc:"The screenshot taken after the action (its image is the answer's image block)."`
	ObservationError *Error   `json:"observation_error,omitempty"`
	Reports          int      `json:"reports" desc:"HID reports written to the phone."`
	TookMS           int64    `json:"took_ms" desc:"How long the input took."`
	Cadence          *Cadence `json:"cadence,omitempty" desc:"Gestures: the pacing achieved (median_interval_ms, max_gap_ms between movement reports; skipped stale points)."`
	Via              string   `json:"via,omitempty" desc:"The input path that ran, where the phone has two: aoa (HID over the cable) or adb-input (the shell's input command, where AOA is refused)."`
}

// Input returns the input result (promoted to every input tool's result).
func (r *InputResult) Input() *InputResult { return r }

// Cadence is a gesture's pacing on the monotonic clock.
type Cadence struct {
	MedianIntervalMS float64 `json:"median_interval_ms"`
	MaxGapMS         float64 `json:"max_gap_ms"`
	Skipped          int     `json:"skipped"`
}

// Results of the input tools.
type (
	TapResult       = InputResult
	LongPressResult = InputResult
	SwipeResult     = InputResult
	TypeTextResult  = InputResult
	KeyResult       = InputResult
	ButtonResult    = InputResult
	ShortcutResult  = InputResult
	OpenURLResult   = InputResult
)

// SendTextResult is openlolo_send_text's result.
type SendTextResult struct {
	InputResult
	ClipboardReplaced bool `json:"clipboard_replaced" desc:"true: the phone's clipboard now holds the text (what it held before is gone)."`
	Characters        int  `json:"characters" desc:"Characters pasted (Unicode code points)."`
}

// ClipboardResult is openlolo_clipboard's result.
type ClipboardResult struct {
	Text       string `json:"text" desc:"What the phone's clipboard holds (empty when nothing or no text)."`
	Characters int    `json:"characters"`
}

// Page is one page of openlolo_full_page: its frame as sent and how it
// lines up with the page before.
type Page struct {
	Frame
	Shift   int  `json:"shift" desc:"Native pixels the content moved up since the previous page (0 for the first)."`
	Matched bool `json:"matched" desc:"true: the overlap with the previous page was found in the pixels; false: shift is the drag's length, a guess (and for the first page)."`
	Image   int  `json:"image" desc:"Index of this page's image among the answer's image blocks; -1 when output is stitched."`
}

// StitchedImage is the whole page as one image: the first page, then each
// later page's new rows, then the fixed footer.
type StitchedImage struct {
	Width  int         `json:"width"`
	Height int         `json:"height"`
	Format ImageFormat `json:"format"`
	Image  int         `json:"image" desc:"Index of the stitched image among the answer's image blocks (the last one)."`
}

// FullPageResult is openlolo_full_page's result. Its image blocks are the
// pages in order (output pages or both), then the stitched image (output
// stitched or both).
type FullPageResult struct {
	Pages     []Page         `json:"pages"`
	PageCount int            `json:"page_count"`
	Stopped   string         `json:"stopped" desc:"end: a drag no longer moved the page (its bottom); pages: max_pages reached."`
	Header    int            `json:"header" desc:"Native pixels of fixed chrome at the top (status and navigation bars) that did not scroll."`
	Footer    int            `json:"footer" desc:"Native pixels of fixed chrome at the bottom."`
	Swipes    int            `json:"swipes" desc:"Drags made."`
	Stitched  *StitchedImage `json:"stitched,omitempty"`
	Current   *Frame         `json:"current" desc:"The frame on the screen now (the last page): YOUR latest frame, for the next tap."`
	TookMS    int64          `json:"took_ms"`
}

// LaunchAppResult is openlolo_launch_app's result.
type LaunchAppResult struct {
	InputResult
	App *App `json:"app,omitempty" desc:"The app that was opened."`
}

// PhonesResult is openlolo_phones's result.
type PhonesResult struct {
	Phones []PhoneEntry `json:"phones"`
}

// PhoneEntry is one phone of the box as openlolo_phones lists it.
type PhoneEntry struct {
	ID string `json:"id" desc:"The phone's stable id: the phone argument of every phone tool."`
	// Name is the name the owner gave the phone on the box page, or the
	// model its backend reports when the owner gave none.
	Name     string     `json:"name"`
	Platform Platform   `json:"platform"`
	Backend  Backend    `json:"backend"`
	State    PhoneState `json:"state"`
	Problems []Problem  `json:"problems"`
	Control  Lease      `json:"control"`
	Paused   bool       `json:"paused"`
}
