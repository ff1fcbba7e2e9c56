package control

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// The verbs: one per tool, taking the caller and the tool's typed
// arguments and returning its typed answer. Each applies the rules inside
// it (rate window, then the tool's checks, then lease, pause, queue,
// frame and journal through [Do] for mutating tools); a caller only
// decodes the arguments and renders the answer.

// admit counts c's call against the rate window.
func (s *Service) admit(c Client) *Error {
	_, e := s.Allow(c)
	return e
}

// Unreadable is the answer to c's call of tool whose arguments could not
// be decoded (e, INVALID_ARGUMENTS): the call still counts against the
// rate window (RATE_LIMITED when over it), except openlolo_pause, which
// never does. A mutating tool's refusal says nothing was dispatched.
func Unreadable[R any](s *Service, c Client, tool api.Tool, mutating bool, e *Error) Answer[R] {
	if tool != api.ToolPause {
		if le := s.admit(c); le != nil {
			e = le
		}
	}
	if mutating {
		return Refuse[R](e)
	}
	return Fail[R](e)
}

// Status is openlolo_status's phone, control and rate part; the caller
// adds what it knows about the box and the client (Box, You, Remote).
func (s *Service) Status(ctx context.Context, c Client, _ api.StatusArgs) Reply[api.StatusResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.StatusResult](e))
	}
	info, st := s.ph.Info(), s.ph.State()
	s.mu.Lock()
	s.lapseLocked()
	res := &api.StatusResult{Control: s.leaseLocked(c), Paused: s.paused}
	s.mu.Unlock()
	res.Phone = api.PhoneStatus{Backend: info.Backend, Model: info.Model, Platform: info.Platform,
		Ready: st.Ready, State: st.Code, Reason: st.Reason, Width: st.Geometry.Width, Height: st.Geometry.Height,
		GeometryEpoch: api.FormatEpoch(st.Geometry.Epoch)}
	res.CallsLeft = s.CallsLeft(c)
	return reply(OK(res))
}

// Capabilities is openlolo_capabilities.
func (s *Service) Capabilities(ctx context.Context, c Client, _ api.CapabilitiesArgs) Reply[api.CapabilitiesResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.CapabilitiesResult](e))
	}
	info := s.ph.Info()
	buttons := append([]api.Button{}, info.Buttons...)
	schemes := []string{"http", "https"}
	if info.Can.OpenURL {
		schemes = []string{"*"}
	}
	formats := []api.ImageFormat{}
	for _, f := range api.ImageFormat("").Enum() {
		formats = append(formats, api.ImageFormat(f))
	}
	mods := []api.Modifier{}
	for _, m := range api.Modifier("").Enum() {
		mods = append(mods, api.Modifier(m))
	}
	return reply(OK(&api.CapabilitiesResult{
		Platform: info.Platform, Backend: info.Backend,
		Keyboard: info.Keyboard, Touch: info.Touch, Screenshot: info.Screenshot,
		Buttons: buttons, Keys: api.KeyNames(), Modifiers: mods,
		TypeText: api.TextCapability{MaxChars: api.MaxText, Charset: "printable US ASCII"},
		Gestures: api.GestureCapability{Tap: true, LongPressSeconds: []float64{api.MinGesture, api.MaxGesture},
			SwipeSeconds: []float64{api.MinGesture, api.MaxGesture}, SwipeHold: []float64{0, api.MaxGesture}},
		Screenshots: api.ImageCapability{Formats: formats, MaxSize: []int{api.MinImageSize, api.MaxImageSize},
			DefaultMaxSize: api.DefaultMaxSize},
		LaunchApp: len(info.Apps) > 0, OpenURL: schemes, Shortcuts: shortcuts(info),
		Native:    api.NativeCapability{LaunchApp: info.Can.LaunchApp, OpenURL: info.Can.OpenURL, Clipboard: info.Can.Clipboard},
		Clipboard: clipboardCapability(info),
	}))
}

// Screenshot is openlolo_screenshot: the phone's newest frame becomes c's
// latest. The answer's Width and Height are the encoded image's, so the
// caller, which encodes Shot as Shot.Format within Shot.MaxSize, fills
// the result with [Shot.Result].
func (s *Service) Screenshot(ctx context.Context, c Client, a api.ScreenshotArgs) Reply[api.ScreenshotResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.ScreenshotResult](e))
	}
	format, size, e := checkScreenshot(a)
	if e != nil {
		return reply(Fail[api.ScreenshotResult](e))
	}
	shot, err := s.TakeFrame(ctx, c)
	if err != nil {
		return reply(Fail[api.ScreenshotResult](PhoneError(err)))
	}
	shot.Format, shot.MaxSize = format, size
	return Reply[api.ScreenshotResult]{Answer: OK(&api.ScreenshotResult{}), Shot: &shot}
}

// Apps is openlolo_apps.
func (s *Service) Apps(ctx context.Context, c Client, a api.AppsArgs) Reply[api.AppsResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.AppsResult](e))
	}
	if e := api.Length(api.ToolApps, "query", a.Query); e != nil {
		return reply(Fail[api.AppsResult](e))
	}
	q := strings.ToLower(strings.TrimSpace(a.Query))
	res := &api.AppsResult{Apps: []api.App{}, Query: a.Query}
	for _, app := range s.ph.Info().Apps {
		if q == "" || strings.Contains(strings.ToLower(app.Name), q) || strings.Contains(strings.ToLower(app.ID), q) {
			res.Apps = append(res.Apps, api.App{BundleID: app.ID, Name: app.Name})
		}
	}
	res.Matched = len(res.Apps)
	return reply(OK(res))
}

// DeviceInfo is openlolo_device_info.
func (s *Service) DeviceInfo(ctx context.Context, c Client, _ api.DeviceInfoArgs) Reply[api.DeviceInfoResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.DeviceInfoResult](e))
	}
	info, st := s.ph.Info(), s.ph.State()
	return reply(OK(&api.DeviceInfoResult{Model: info.Model, Platform: info.Platform,
		Backend: info.Backend, NativeWidth: info.Native.X, NativeHeight: info.Native.Y,
		Ready: st.Ready, State: st.Code, Reason: st.Reason}))
}

// OperationStatus is openlolo_operation_status: the journal record of one
// of c's operations, with the answer it stored.
func (s *Service) OperationStatus(ctx context.Context, c Client, a api.OperationStatusArgs) Reply[api.OperationStatusResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.OperationStatusResult](e))
	}
	if a.OperationID == "" {
		return reply(Fail[api.OperationStatusResult](invalid("argument %q is required", "operation_id")))
	}
	id, e := opID(a.OperationID)
	if e != nil {
		return reply(Fail[api.OperationStatusResult](e))
	}
	op, e := s.Operation(ctx, c, id)
	if e != nil {
		return reply(Fail[api.OperationStatusResult](e))
	}
	rec := api.Operation{ID: op.ID, Tool: api.Tool(op.Tool), State: op.State, Code: api.Code(op.Code),
		CreatedMS: op.Created.UnixMilli(), UpdatedMS: op.Updated.UnixMilli()}
	if op.Answer != "" && json.Valid([]byte(op.Answer)) {
		rec.Answer = json.RawMessage(op.Answer)
	}
	return reply(OK(&api.OperationStatusResult{Operation: rec}))
}

// Watch is openlolo_watch.
func (s *Service) Watch(ctx context.Context, c Client, a api.WatchArgs) Reply[api.WatchResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.WatchResult](e))
	}
	req, e := checkWatch(a)
	if e == nil {
		e = s.checkWatchPhones(c, a.Phones)
	}
	if e != nil {
		return reply(Fail[api.WatchResult](e))
	}
	res, e := s.Events(ctx, c, req)
	if e != nil {
		return reply(Fail[api.WatchResult](e))
	}
	out := &api.WatchResult{Events: res.Events, Cursor: res.Cursor}
	if out.Events == nil {
		out.Events = []api.Event{}
	}
	if res.Revoked {
		out.Ended = "grant_revoked"
	}
	return reply(OK(out))
}

// PauseInput is openlolo_pause: any client stops all input at once. It is
// never rate-limited.
func (s *Service) PauseInput(ctx context.Context, c Client, a api.PauseArgs) Reply[api.PauseResult] {
	id, e := opID(a.OperationID)
	if e != nil {
		return reply(Refuse[api.PauseResult](e))
	}
	a.OperationID = ""
	if a.Phone == "" && len(s.phones) > 1 && len(s.reachable(c)) == 0 {
		// Saying paused while pausing nothing would mislead the caller.
		return reply(Refuse[api.PauseResult](s.noneReachable(c)))
	}
	return reply(Do(ctx, s, Call[api.PauseResult]{Client: c, Tool: api.ToolPause, OperationID: id, Args: a,
		Run: func(ctx context.Context) (*api.PauseResult, error) {
			// Naming no phone on a box of several pauses every phone
			// the client's grant reaches.
			var err error
			if a.Phone == "" {
				err = s.pauseAll(ctx, s.reachable(c), c.Name, c.ID, false)
			} else {
				err = s.pause(ctx, c.Name, c.ID, false)
			}
			if err != nil {
				return nil, err
			}
			return &api.PauseResult{Paused: true}, nil
		}}))
}

// Control is openlolo_control: acquire, renew, release or resume.
func (s *Service) Control(ctx context.Context, c Client, a api.ControlArgs) Reply[api.ControlResult] {
	if e := s.admit(c); e != nil {
		return reply(Refuse[api.ControlResult](e))
	}
	if !a.Command.Valid() {
		return reply(Refuse[api.ControlResult](invalid("command must be acquire, renew, release or resume, not %q", api.Clip(string(a.Command)))))
	}
	id, e := opID(a.OperationID)
	if e != nil {
		return reply(Refuse[api.ControlResult](e))
	}
	a.OperationID = ""
	return reply(Do(ctx, s, Call[api.ControlResult]{Client: c, Tool: api.ToolControl, OperationID: id, Args: a,
		Check: func() *Error { return s.CheckCommand(c, a.Command) },
		Run: func(ctx context.Context) (*api.ControlResult, error) {
			return s.ControlCommand(ctx, c, a.Command)
		}}))
}

// Cancel is openlolo_cancel: stop one of c's queued or running operations.
func (s *Service) Cancel(ctx context.Context, c Client, a api.CancelArgs) Reply[api.CancelResult] {
	if e := s.admit(c); e != nil {
		return reply(Refuse[api.CancelResult](e))
	}
	if a.Target == "" {
		return reply(Refuse[api.CancelResult](invalid("argument %q is required", "target")))
	}
	target, e := opID(a.Target)
	if e != nil {
		return reply(Refuse[api.CancelResult](invalid("target must be an operation_id (a UUID)")))
	}
	id, e := opID(a.OperationID)
	if e != nil {
		return reply(Refuse[api.CancelResult](e))
	}
	a.OperationID = ""
	return reply(Do(ctx, s, Call[api.CancelResult]{Client: c, Tool: api.ToolCancel, OperationID: id, Args: a,
		Check: func() *Error {
			_, e := s.Operation(ctx, c, target)
			return e
		},
		Run: func(ctx context.Context) (*api.CancelResult, error) { return s.CancelOp(ctx, c, target) }}))
}

// inputResult is a pointer to an input tool's result type R.
type inputResult[R any] interface {
	*R
	Input() *api.InputResult
}

// input runs one input action for c under the rules, then, when asked,
// waits settle seconds and takes the observation screenshot. done adds the
// tool's own members to a successful result.
func input[R any, P inputResult[R]](ctx context.Context, s *Service, c Client, tool api.Tool, o inputOpts,
	args any, frame *FrameRef, run func(ctx context.Context) (phone.Report, error), done func(*R)) Reply[R] {
	a := Do(ctx, s, Call[R]{Client: c, Tool: tool, OperationID: o.opID, Args: args, Input: true, Frame: frame,
		Run: func(ctx context.Context) (*R, error) {
			rep, err := run(ctx)
			if err != nil {
				return nil, err
			}
			r := new(R)
			*P(r).Input() = reported(rep)
			if done != nil {
				done(r)
			}
			return r, nil
		}})
	out := Reply[R]{Answer: a}
	if a.Status != api.StatusOK || !o.observe {
		return out
	}
	if o.settle > 0 {
		t := time.NewTimer(seconds(o.settle))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	shot, err := s.TakeFrame(ctx, c)
	if err != nil {
		out.ShotError = PhoneError(err)
		return out
	}
	out.Shot = &shot
	if a.OperationID != "" && !a.Replayed {
		s.queueThumb(c.ID, a.OperationID, shot.Frame)
	}
	return out
}

// reported is how an input was delivered: the reports written, the time
// it took and, for gestures, the cadence achieved on the monotonic clock
// (median interval and largest gap between movement reports, and the
// stale points skipped rather than sent in a burst).
func reported(rep phone.Report) api.InputResult {
	r := api.InputResult{Reports: rep.Reports, TookMS: rep.Took.Milliseconds(), Via: rep.Via}
	if rep.MedianInterval > 0 || rep.MaxGap > 0 {
		r.Cadence = &api.Cadence{MedianIntervalMS: float64(rep.MedianInterval.Microseconds()) / 1000,
			MaxGapMS: float64(rep.MaxGap.Microseconds()) / 1000, Skipped: rep.Skipped}
	}
	return r
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// refuseInput is an input refused before it became an operation.
func refuseInput[R any](e *Error) Reply[R] { return reply(Refuse[R](e)) }

// Tap is openlolo_tap.
func (s *Service) Tap(ctx context.Context, c Client, a api.TapArgs) Reply[api.TapResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.TapResult](e)
	}
	o, e := checkOptions(api.ToolTap, &a.InputOptions)
	if e != nil {
		return refuseInput[api.TapResult](e)
	}
	ref, p, e := s.touchPoint(c, api.ToolTap, a.FrameArgs, a.Element)
	if e != nil {
		return refuseInput[api.TapResult](e)
	}
	return input[api.TapResult](ctx, s, c, api.ToolTap, o, a, &ref, func(ctx context.Context) (phone.Report, error) {
		return s.ph.Touch(ctx, phone.Tap(p, phone.TapHold))
	}, nil)
}

// LongPress is openlolo_long_press.
func (s *Service) LongPress(ctx context.Context, c Client, a api.LongPressArgs) Reply[api.LongPressResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.LongPressResult](e)
	}
	o, e := checkOptions(api.ToolLongPress, &a.InputOptions)
	if e != nil {
		return refuseInput[api.LongPressResult](e)
	}
	ref, p, e := s.touchPoint(c, api.ToolLongPress, a.FrameArgs, a.Element)
	if e != nil {
		return refuseInput[api.LongPressResult](e)
	}
	secs, e := api.Number(api.ToolLongPress, "seconds", a.Seconds)
	if e != nil {
		return refuseInput[api.LongPressResult](e)
	}
	return input[api.LongPressResult](ctx, s, c, api.ToolLongPress, o, a, &ref, func(ctx context.Context) (phone.Report, error) {
		return s.ph.Touch(ctx, phone.Tap(p, seconds(secs)))
	}, nil)
}

// Swipe is openlolo_swipe.
func (s *Service) Swipe(ctx context.Context, c Client, a api.SwipeArgs) Reply[api.SwipeResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.SwipeResult](e)
	}
	o, e := checkOptions(api.ToolSwipe, &a.InputOptions)
	if e != nil {
		return refuseInput[api.SwipeResult](e)
	}
	ref, from, e := checkFrame(api.ToolSwipe, a.FrameArgs)
	if e != nil {
		return refuseInput[api.SwipeResult](e)
	}
	var to phone.Point
	var secs, hold float64
	for _, f := range []struct {
		name string
		v    *float64
		out  *float64
	}{{"x2", a.X2, &to.X}, {"y2", a.Y2, &to.Y}, {"seconds", a.Seconds, &secs}, {"hold", a.Hold, &hold}} {
		if *f.out, e = api.Number(api.ToolSwipe, f.name, f.v); e != nil {
			return refuseInput[api.SwipeResult](e)
		}
	}
	g := phone.Swipe(from, to, phone.SwipeDwell, seconds(secs), seconds(hold), phone.SwipeRate)
	return input[api.SwipeResult](ctx, s, c, api.ToolSwipe, o, a, &ref, func(ctx context.Context) (phone.Report, error) {
		return s.ph.Touch(ctx, g)
	}, nil)
}

// TypeText is openlolo_type_text.
func (s *Service) TypeText(ctx context.Context, c Client, a api.TypeTextArgs) Reply[api.TypeTextResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.TypeTextResult](e)
	}
	o, e := checkOptions(api.ToolTypeText, &a.InputOptions)
	if e != nil {
		return refuseInput[api.TypeTextResult](e)
	}
	text, e := checkText(a.Text)
	if e != nil {
		return refuseInput[api.TypeTextResult](e)
	}
	if a.Element == "" && (a.FrameID != "" || a.GeometryEpoch != "") {
		return refuseInput[api.TypeTextResult](invalid("frame_id and geometry_epoch go with element (the text field to focus); give element too, or leave all three out"))
	}
	if a.Element == "" {
		return input[api.TypeTextResult](ctx, s, c, api.ToolTypeText, o, a, nil, func(ctx context.Context) (phone.Report, error) {
			return s.ph.Type(ctx, text)
		}, nil)
	}
	ref, p, e := s.touchPoint(c, api.ToolTypeText, api.FrameArgs{FrameID: a.FrameID, GeometryEpoch: a.GeometryEpoch}, a.Element)
	if e != nil {
		return refuseInput[api.TypeTextResult](e)
	}
	return input[api.TypeTextResult](ctx, s, c, api.ToolTypeText, o, a, &ref, func(ctx context.Context) (phone.Report, error) {
		return focusAndType(ctx, s.ph, p, text)
	}, nil)
}

// focusAndType taps p (a text field), waits for the field to take the
// focus, then types text; the report adds up both.
func focusAndType(ctx context.Context, ph phone.Phone, p phone.Point, text string) (phone.Report, error) {
	tap, err := ph.Touch(ctx, phone.Tap(p, phone.TapHold))
	if err != nil {
		return tap, err
	}
	t := time.NewTimer(seconds(api.FocusSettle))
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
		return tap, ctx.Err()
	}
	typed, err := ph.Type(ctx, text)
	typed.Reports += tap.Reports
	typed.Took += tap.Took + seconds(api.FocusSettle)
	return typed, err
}

// Key is openlolo_key.
func (s *Service) Key(ctx context.Context, c Client, a api.KeyArgs) Reply[api.KeyResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.KeyResult](e)
	}
	o, e := checkOptions(api.ToolKey, &a.InputOptions)
	if e != nil {
		return refuseInput[api.KeyResult](e)
	}
	k, e := checkKey(a)
	if e != nil {
		return refuseInput[api.KeyResult](e)
	}
	return input[api.KeyResult](ctx, s, c, api.ToolKey, o, a, nil, func(ctx context.Context) (phone.Report, error) {
		return s.ph.Key(ctx, k)
	}, nil)
}

// Button is openlolo_button.
func (s *Service) Button(ctx context.Context, c Client, a api.ButtonArgs) Reply[api.ButtonResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.ButtonResult](e)
	}
	o, e := checkOptions(api.ToolButton, &a.InputOptions)
	if e != nil {
		return refuseInput[api.ButtonResult](e)
	}
	b, e := checkButton(a.Button)
	if e != nil {
		return refuseInput[api.ButtonResult](e)
	}
	if !s.ph.Info().HasButton(b) {
		return refuseInput[api.ButtonResult](api.Errorf(api.CodeUnsupportedButton, "this phone has no %s button", b))
	}
	return input[api.ButtonResult](ctx, s, c, api.ToolButton, o, a, nil, func(ctx context.Context) (phone.Report, error) {
		return s.ph.Press(ctx, b)
	}, nil)
}

// LaunchApp is openlolo_launch_app: natively where the phone can, else
// through its search (phone.LaunchApp).
func (s *Service) LaunchApp(ctx context.Context, c Client, a api.LaunchAppArgs) Reply[api.LaunchAppResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.LaunchAppResult](e)
	}
	o, e := checkOptions(api.ToolLaunchApp, &a.InputOptions)
	if e != nil {
		return refuseInput[api.LaunchAppResult](e)
	}
	ref := a.BundleID
	if ref == "" {
		ref = a.Name
	}
	info := s.ph.Info()
	app, e := findApp(info.Apps, ref)
	if e != nil {
		return refuseInput[api.LaunchAppResult](e)
	}
	if _, e := checkText(&app.Name); e != nil && !info.Can.LaunchApp {
		return refuseInput[api.LaunchAppResult](api.Errorf(api.CodeUnsupported, "the app's name %q cannot be typed into search", app.Name))
	}
	return input[api.LaunchAppResult](ctx, s, c, api.ToolLaunchApp, o, a, nil, func(ctx context.Context) (phone.Report, error) {
		return phone.LaunchApp(ctx, s.ph, app)
	}, func(r *api.LaunchAppResult) { r.App = &api.App{BundleID: app.ID, Name: app.Name} })
}

// OpenURL is openlolo_open_url: natively where the phone can (any scheme),
// else http and https through Safari's address bar (phone.OpenURL).
func (s *Service) OpenURL(ctx context.Context, c Client, a api.OpenURLArgs) Reply[api.OpenURLResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.OpenURLResult](e)
	}
	o, e := checkOptions(api.ToolOpenURL, &a.InputOptions)
	if e != nil {
		return refuseInput[api.OpenURLResult](e)
	}
	u, e := checkURL(s.ph, a.URL)
	if e != nil {
		return refuseInput[api.OpenURLResult](e)
	}
	info := s.ph.Info()
	var safari phone.App
	if !info.Can.OpenURL {
		if safari, e = findApp(info.Apps, phone.SafariID); e != nil {
			return refuseInput[api.OpenURLResult](api.Errorf(api.CodeUnsupported, "this phone's app catalog has no Safari to open URLs in"))
		}
	}
	return input[api.OpenURLResult](ctx, s, c, api.ToolOpenURL, o, a, nil, func(ctx context.Context) (phone.Report, error) {
		return phone.OpenURLIn(ctx, s.ph, u, urlApp(u, a.BundleID), safari)
	}, nil)
}

// urlApp is the app a URL should open in: none for http and https (the
// browser takes them), else bundleID (the caller's, or the app profile's)
// where the phone can be told.
func urlApp(u, bundleID string) string {
	if l := strings.ToLower(u); strings.HasPrefix(l, "http:") || strings.HasPrefix(l, "https:") {
		return ""
	}
	return bundleID
}
