package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/hw/phone"
)

// Argument limits.
const (
	maxText    = 500
	maxURL     = 2048
	maxQuery   = 80
	maxAppRef  = 255
	maxCursor  = 64
	defaultMax = 1536
)

func invalid(format string, args ...any) *control.Error {
	return control.Errorf(control.CodeInvalidArguments, format, args...)
}

// decodeArgs decodes one JSON object into v strictly: unknown members and
// wrong types are INVALID_ARGUMENTS with a sentence naming the member.
func decodeArgs(raw json.RawMessage, v any) *control.Error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return invalid("argument %q must be %s, not a JSON %s", te.Field, typeWord(te.Type.String()), te.Value)
		case errors.As(err, &se):
			return invalid("arguments are not valid JSON: %v", se)
		}
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
			return invalid("unknown argument %s; tools/list gives this tool's arguments", f)
		}
		return invalid("arguments could not be read: %s", msg)
	}
	if dec.More() {
		return invalid("arguments must be one JSON object")
	}
	return nil
}

func typeWord(goType string) string {
	switch strings.TrimPrefix(goType, "*") {
	case "float64":
		return "a number"
	case "int":
		return "an integer"
	case "bool":
		return "true or false"
	case "string", "mcp.epoch":
		return "a string"
	case "[]string":
		return "a list of strings"
	}
	return "of another type"
}

// epoch is geometry_epoch: we give it as a string; clients may send the
// string or the number.
type epoch string

// UnmarshalJSON takes a string or an unsigned integer.
func (e *epoch) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*e = epoch(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		if _, err := strconv.ParseUint(string(n), 10, 64); err == nil {
			*e = epoch(n)
			return nil
		}
	}
	return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeOf(epoch("")), Field: "geometry_epoch"}
}

func opID(s string) (string, *control.Error) {
	if s == "" {
		return "", nil
	}
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return "", invalid("operation_id must be a UUID such as 3f0c2a4e-8a51-4c39-9d7e-2f1b6c1e7a90, not %q", clip(s))
	}
	return u.String(), nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func finite(name string, v *float64, lo, hi, def float64, required bool) (float64, *control.Error) {
	if v == nil {
		if required {
			return 0, invalid("argument %q is required", name)
		}
		return def, nil
	}
	if math.IsNaN(*v) || math.IsInf(*v, 0) || *v < lo || *v > hi {
		return 0, invalid("argument %q must be between %g and %g, not %g", name, lo, hi, *v)
	}
	return *v, nil
}

// inputCommon gives the members every input tool takes; it is promoted to
// each input tool's argument struct, which is what decodeInput needs.
func (c *common) inputCommon() *common { return c }

// decodeInput decodes an input tool's arguments into a and checks the
// members every input tool shares (settle defaults to defSettle).
func decodeInput[A interface{ inputCommon() *common }](raw json.RawMessage, a A, defSettle float64) (inputOpts, *control.Error) {
	if e := decodeArgs(raw, a); e != nil {
		return inputOpts{}, e
	}
	return a.inputCommon().check(defSettle)
}

// common holds the members every input tool takes.
type common struct {
	OperationID string   `json:"operation_id,omitempty"`
	Observe     *bool    `json:"observe,omitempty"`
	Settle      *float64 `json:"settle,omitempty"`
}

type inputOpts struct {
	opID    string
	observe bool
	settle  float64
}

func (c *common) check(defSettle float64) (inputOpts, *control.Error) {
	id, e := opID(c.OperationID)
	if e != nil {
		return inputOpts{}, e
	}
	settle, e := finite("settle", c.Settle, 0, 5, defSettle, false)
	if e != nil {
		return inputOpts{}, e
	}
	o := inputOpts{opID: id, observe: true, settle: settle}
	if c.Observe != nil {
		o.observe = *c.Observe
	}
	c.OperationID = "" // not part of the fingerprint
	return o, nil
}

type frameArgs struct {
	FrameID       string   `json:"frame_id"`
	GeometryEpoch epoch    `json:"geometry_epoch"`
	X             *float64 `json:"x"`
	Y             *float64 `json:"y"`
}

func (f frameArgs) check() (control.FrameRef, phone.Point, *control.Error) {
	if f.FrameID == "" || f.GeometryEpoch == "" {
		return control.FrameRef{}, phone.Point{}, invalid("frame_id and geometry_epoch are required: take them from your latest openlolo_screenshot")
	}
	x, e := finite("x", f.X, 0, 1, 0, true)
	if e != nil {
		return control.FrameRef{}, phone.Point{}, e
	}
	y, e := finite("y", f.Y, 0, 1, 0, true)
	if e != nil {
		return control.FrameRef{}, phone.Point{}, e
	}
	return control.FrameRef{ID: f.FrameID, Epoch: string(f.GeometryEpoch)}, phone.Point{X: x, Y: y}, nil
}

type tapArgs struct {
	frameArgs
	common
}

type longPressArgs struct {
	frameArgs
	common
	Seconds *float64 `json:"seconds,omitempty"`
}

type swipeArgs struct {
	frameArgs
	common
	X2      *float64 `json:"x2"`
	Y2      *float64 `json:"y2"`
	Seconds *float64 `json:"seconds,omitempty"`
	Hold    *float64 `json:"hold,omitempty"`
}

type typeArgs struct {
	common
	Text *string `json:"text"`
}

// checkText refuses what the keyboard cannot type, before anything is sent.
func checkText(t *string) (string, *control.Error) {
	if t == nil || *t == "" {
		return "", invalid("argument \"text\" is required and must not be empty")
	}
	if len(*t) > maxText {
		return "", invalid("text is %d characters; type_text takes up to %d per call", len(*t), maxText)
	}
	for i, r := range *t {
		if r < 0x20 || r > 0x7e {
			return "", control.Errorf(control.CodeUnsupportedText,
				"character %q at byte %d is not printable US ASCII; nothing was typed", r, i)
		}
	}
	return *t, nil
}

type keyArgs struct {
	common
	Key       string   `json:"key"`
	Modifiers []string `json:"modifiers,omitempty"`
}

// keyNames are the named keys openlolo_key takes.
func keyNames() []string {
	names := []string{"enter", "escape", "backspace", "tab", "space", "up", "down", "left", "right",
		"delete", "home", "end", "pageup", "pagedown"}
	for c := 'a'; c <= 'z'; c++ {
		names = append(names, string(c))
	}
	for c := '0'; c <= '9'; c++ {
		names = append(names, string(c))
	}
	for i := 1; i <= 12; i++ {
		names = append(names, "f"+strconv.Itoa(i))
	}
	return names
}

func modifierNames() []string { return []string{"ctrl", "shift", "alt", "cmd"} }

func (k keyArgs) check() (phone.Key, *control.Error) {
	name := strings.ToLower(strings.TrimSpace(k.Key))
	if name == "" {
		return phone.Key{}, invalid("argument \"key\" is required")
	}
	if !slices.Contains(keyNames(), name) {
		return phone.Key{}, control.Errorf(control.CodeUnsupportedKey, "key %q is not one of a–z, 0–9, enter, escape, backspace, tab, space, arrows, delete, home, end, pageup, pagedown, f1–f12", clip(k.Key))
	}
	if len(k.Modifiers) > 4 {
		return phone.Key{}, invalid("at most 4 modifiers")
	}
	var mods phone.Modifier
	for _, m := range k.Modifiers {
		switch strings.ToLower(m) {
		case "ctrl":
			mods |= phone.Ctrl
		case "shift":
			mods |= phone.Shift
		case "alt":
			mods |= phone.Alt
		case "cmd":
			mods |= phone.Cmd
		default:
			return phone.Key{}, control.Errorf(control.CodeUnsupportedKey, "modifier %q is not ctrl, shift, alt or cmd", clip(m))
		}
	}
	return phone.Key{Name: name, Mods: mods}, nil
}

type buttonArgs struct {
	common
	Button string `json:"button"`
}

func buttonNames() []string {
	return []string{"home", "lock", "volume_up", "volume_down", "mute", "back", "app_switch"}
}

type launchArgs struct {
	common
	BundleID string `json:"bundle_id,omitempty"`
	Name     string `json:"name,omitempty"`
}

// findApp resolves a bundle id or display name in the catalog.
func findApp(apps []phone.App, ref string) (phone.App, *control.Error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return phone.App{}, invalid("give bundle_id (or name): the app's bundle id or its name, as openlolo_apps lists them")
	}
	if len(ref) > maxAppRef {
		return phone.App{}, invalid("bundle_id is longer than %d characters", maxAppRef)
	}
	for _, a := range apps {
		if strings.EqualFold(a.ID, ref) || strings.EqualFold(a.Name, ref) {
			return a, nil
		}
	}
	return phone.App{}, control.Errorf(control.CodeAppNotFound, "no app %q in this box's catalog", clip(ref))
}

type openURLArgs struct {
	common
	URL      string `json:"url"`
	BundleID string `json:"bundle_id,omitempty"`
}

func checkURL(s string) (string, *control.Error) {
	if len(s) < 3 || len(s) > maxURL {
		return "", invalid("url must be 3 to %d characters", maxURL)
	}
	for _, r := range s {
		if r <= 0x20 || r > 0x7e {
			return "", invalid("url has a space, control or non-ASCII character; percent-encode it")
		}
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return "", invalid("url must be absolute, like https://example.com/path")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", control.Errorf(control.CodeUnsupported, "only http and https URLs open (in Safari) on this box, not %q", u.Scheme)
	}
	return s, nil
}

type controlArgs struct {
	Command     string `json:"command"`
	OperationID string `json:"operation_id,omitempty"`
}

type cancelArgs struct {
	Target      string `json:"target"`
	OperationID string `json:"operation_id,omitempty"`
}

type pauseArgs struct {
	OperationID string `json:"operation_id,omitempty"`
}

type screenshotArgs struct {
	Format  string `json:"format,omitempty"`
	MaxSize *int   `json:"max_size,omitempty"`
}

func (a screenshotArgs) check() (string, int, *control.Error) {
	format := strings.ToLower(a.Format)
	if format == "" {
		format = "jpeg"
	}
	if format == "jpg" {
		format = "jpeg"
	}
	if format != "jpeg" && format != "png" {
		return "", 0, invalid("format must be jpeg or png, not %q", clip(a.Format))
	}
	size := defaultMax
	if a.MaxSize != nil {
		size = *a.MaxSize
	}
	if size < 128 || size > 4096 {
		return "", 0, invalid("max_size must be between 128 and 4096, not %d", size)
	}
	return format, size, nil
}

type appsArgs struct {
	Query string `json:"query,omitempty"`
	// IncludeHidden is accepted for the Python box's clients; this box's
	// catalog has no hidden apps.
	IncludeHidden bool `json:"include_hidden,omitempty"`
}

type opStatusArgs struct {
	OperationID string `json:"operation_id"`
}

type watchArgs struct {
	Cursor string   `json:"cursor,omitempty"`
	WaitMS *int     `json:"wait_ms,omitempty"`
	Kinds  []string `json:"kinds,omitempty"`
}

func watchKinds() []string {
	return []string{control.KindFrame, control.KindControl, control.KindPhone, control.KindOperation, control.KindAccess}
}

func (a watchArgs) check() (control.WatchRequest, *control.Error) {
	if len(a.Cursor) > maxCursor {
		return control.WatchRequest{}, invalid("cursor is longer than %d characters", maxCursor)
	}
	wait := 25000
	if a.WaitMS != nil {
		wait = *a.WaitMS
	}
	if wait < 0 || wait > 60000 {
		return control.WatchRequest{}, invalid("wait_ms must be between 0 and 60000, not %d", wait)
	}
	for _, k := range a.Kinds {
		if !slices.Contains(watchKinds(), k) {
			return control.WatchRequest{}, invalid("kinds has %q; the kinds are %s", clip(k), strings.Join(watchKinds(), ", "))
		}
	}
	return control.WatchRequest{Cursor: a.Cursor, Wait: msDuration(wait), Kinds: a.Kinds}, nil
}

type noArgs struct{}

func msDuration(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

func required(name, v string) *control.Error {
	if v == "" {
		return invalid("argument %q is required", name)
	}
	return nil
}
