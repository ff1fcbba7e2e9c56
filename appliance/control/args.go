package control

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// The checks of the tools' arguments beyond their JSON types, against
// api's table of bounds and vocabularies. Each refusal is an Error with a
// stable code and a sentence that says what to change.

func invalid(format string, args ...any) *Error { return api.Invalid(format, args...) }

func opID(s string) (string, *Error) {
	if s == "" {
		return "", nil
	}
	u, err := uuid.Parse(s)
	if err != nil || len(s) != api.UUIDLen {
		return "", invalid("operation_id must be a UUID such as 3f0c2a4e-8a51-4c39-9d7e-2f1b6c1e7a90, not %q", api.Clip(s))
	}
	return u.String(), nil
}

type inputOpts struct {
	opID    string
	observe bool
	settle  float64
}

// checkOptions checks o and clears its operation_id, which is not part of
// the arguments' fingerprint.
func checkOptions(tool api.Tool, o *api.InputOptions) (inputOpts, *Error) {
	id, e := opID(o.OperationID)
	if e != nil {
		return inputOpts{}, e
	}
	settle, e := api.Number(tool, "settle", o.Settle)
	if e != nil {
		return inputOpts{}, e
	}
	o.OperationID = ""
	return inputOpts{opID: id, observe: api.Bool(tool, "observe", o.Observe), settle: settle}, nil
}

func checkFrame(tool api.Tool, f api.FrameArgs) (FrameRef, phone.Point, *Error) {
	if f.FrameID == "" || f.GeometryEpoch == "" {
		return FrameRef{}, phone.Point{}, invalid("frame_id and geometry_epoch are required: take them from your latest openlolo_screenshot")
	}
	x, e := api.Number(tool, "x", f.X)
	if e != nil {
		return FrameRef{}, phone.Point{}, e
	}
	y, e := api.Number(tool, "y", f.Y)
	if e != nil {
		return FrameRef{}, phone.Point{}, e
	}
	return FrameRef{ID: f.FrameID, Epoch: string(f.GeometryEpoch)}, phone.Point{X: x, Y: y}, nil
}

// checkText refuses what the keyboard cannot type, before anything is sent.
func checkText(t *string) (string, *Error) {
	if t == nil || *t == "" {
		return "", invalid("argument \"text\" is required and must not be empty")
	}
	if len(*t) > api.MaxText {
		return "", invalid("text is %d characters; type_text takes up to %d per call", len(*t), api.MaxText)
	}
	for i, r := range *t {
		if r < 0x20 || r > 0x7e {
			return "", api.Errorf(api.CodeUnsupportedText,
				"character %q at byte %d is not printable US ASCII; nothing was typed", r, i)
		}
	}
	return *t, nil
}

func checkKey(k api.KeyArgs) (phone.Key, *Error) {
	name := strings.ToLower(strings.TrimSpace(string(k.Key)))
	if name == "" {
		return phone.Key{}, invalid("argument \"key\" is required")
	}
	if !api.IsKey(name) {
		return phone.Key{}, api.Errorf(api.CodeUnsupportedKey, "key %q is not one of a–z, 0–9, enter, escape, backspace, tab, space, arrows, delete, home, end, pageup, pagedown, f1–f12", api.Clip(string(k.Key)))
	}
	if len(k.Modifiers) > api.MaxModifiers {
		return phone.Key{}, invalid("at most %d modifiers", api.MaxModifiers)
	}
	var mods phone.Modifier
	for _, m := range k.Modifiers {
		switch api.Modifier(strings.ToLower(string(m))) {
		case api.ModCtrl:
			mods |= phone.Ctrl
		case api.ModShift:
			mods |= phone.Shift
		case api.ModAlt:
			mods |= phone.Alt
		case api.ModCmd:
			mods |= phone.Cmd
		default:
			return phone.Key{}, api.Errorf(api.CodeUnsupportedKey, "modifier %q is not ctrl, shift, alt or cmd", api.Clip(string(m)))
		}
	}
	return phone.Key{Name: name, Mods: mods}, nil
}

func checkButton(b api.Button) (phone.Button, *Error) {
	if b == "" {
		return "", invalid("argument %q is required", "button")
	}
	lower := strings.ToLower(string(b))
	if !slices.Contains(b.Enum(), lower) {
		return "", api.Errorf(api.CodeUnsupportedButton, "button %q is not one of %s", api.Clip(string(b)), strings.Join(b.Enum(), ", "))
	}
	return api.Button(lower), nil
}

// findApp resolves a bundle id or display name in the catalog.
func findApp(apps []phone.App, ref string) (phone.App, *Error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return phone.App{}, invalid("give bundle_id (or name): the app's bundle id or its name, as openlolo_apps lists them")
	}
	if len(ref) > api.MaxAppRef {
		return phone.App{}, invalid("bundle_id is longer than %d characters", api.MaxAppRef)
	}
	for _, a := range apps {
		if strings.EqualFold(a.ID, ref) || strings.EqualFold(a.Name, ref) {
			return a, nil
		}
	}
	return phone.App{}, api.Errorf(api.CodeAppNotFound, "no app %q in this box's catalog", api.Clip(ref))
}

// checkURL refuses a URL that is malformed or of a scheme p cannot open.
func checkURL(p phone.Phone, s string) (string, *Error) {
	if len(s) < api.MinURL || len(s) > api.MaxURL {
		return "", invalid("url must be %d to %d characters", api.MinURL, api.MaxURL)
	}
	for _, r := range s {
		if r <= 0x20 || r > 0x7e {
			return "", invalid("url has a space, control or non-ASCII character; percent-encode it")
		}
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || (u.Host == "" && u.Opaque == "" && u.Path == "") {
		return "", invalid("url must be absolute, like https://example.com/path")
	}
	if !phone.CanOpen(p, u) {
		return "", api.Errorf(api.CodeUnsupported, "only http and https URLs open (in Safari) on this box, not %q", u.Scheme)
	}
	if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return "", invalid("url must be absolute, like https://example.com/path")
	}
	return s, nil
}

func checkScreenshot(a api.ScreenshotArgs) (api.ImageFormat, int, *Error) {
	format := api.ImageFormat(strings.ToLower(string(a.Format)))
	switch format {
	case "":
		format = api.DefaultFormat
	case "jpg":
		format = api.FormatJPEG
	}
	if !slices.Contains(format.Enum(), string(format)) {
		return "", 0, invalid("format must be jpeg or png, not %q", api.Clip(string(a.Format)))
	}
	size, e := api.Integer(api.ToolScreenshot, "max_size", a.MaxSize)
	if e != nil {
		return "", 0, e
	}
	return format, size, nil
}

func checkWatch(a api.WatchArgs) (WatchRequest, *Error) {
	if e := api.Length(api.ToolWatch, "cursor", a.Cursor); e != nil {
		return WatchRequest{}, e
	}
	wait, e := api.Integer(api.ToolWatch, "wait_ms", a.WaitMS)
	if e != nil {
		return WatchRequest{}, e
	}
	kinds := api.EventKind("").Enum()
	for _, k := range a.Kinds {
		if !slices.Contains(kinds, string(k)) {
			return WatchRequest{}, invalid("kinds has %q; the kinds are %s", api.Clip(string(k)), strings.Join(kinds, ", "))
		}
	}
	return WatchRequest{Cursor: a.Cursor, Wait: time.Duration(wait) * time.Millisecond, Kinds: a.Kinds, Phones: a.Phones}, nil
}
