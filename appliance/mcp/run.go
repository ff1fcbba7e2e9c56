package mcp

import (
	"context"
	"encoding/json"
	"github.com/openlolo/openlolo/api"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/hw/phone"
)

// Input timings.
const (
	tapHold   = 80 * time.Millisecond
	swipeRate = 60 // points per second
	dwell     = 50 * time.Millisecond
	// stepPause lets a real phone's UI catch up between the steps of
	// launch_app and open_url (the sim needs none).
	stepPause = 400 * time.Millisecond
)

func fail(e *control.Error) result { return result{answer: control.Fail(e)} }

// refuse is a mutating call refused before it became an operation.
func refuse(e *control.Error) result {
	a := control.Fail(e)
	a.Dispatched = ptr(false)
	return result{answer: a}
}

func (h *Handler) status(ctx context.Context, c call) result {
	if e := decodeArgs(c.raw, &api.StatusArgs{}); e != nil {
		return fail(e)
	}
	info, st := h.ph.Info(), h.ph.State()
	box := h.info()
	a := control.OK(h.ctl.LeaseFields(c.client))
	a.Set("box", map[string]any{"name": box.Name, "version": box.Version})
	a.Set("phone", map[string]any{"backend": info.Backend, "model": info.Model, "platform": string(info.Platform),
		"ready": st.Ready, "state": st.Code, "reason": st.Reason, "width": st.Geometry.Width, "height": st.Geometry.Height,
		"geometry_epoch": epochString(st.Geometry.Epoch)})
	you := map[string]any{"client_id": c.caller.ClientID, "client_name": c.caller.ClientName,
		"scopes": c.caller.Scopes, "entry": c.caller.Entry, "grant_expires_ms": int64(0)}
	if !c.caller.GrantExpires.IsZero() {
		you["grant_expires_ms"] = c.caller.GrantExpires.UnixMilli()
	}
	a.Set("you", you)
	a.Set("calls_left", h.ctl.CallsLeft(c.client))
	remote := map[string]any{"state": "off", "reason": "the box runs no remote entry (serve --tailnet, or the Settings page)", "url": ""}
	if r := box.Remote; r != nil {
		remote = map[string]any{"state": r.State, "reason": r.Reason, "url": r.URL}
	}
	a.Set("remote", remote)
	return result{answer: a}
}

func epochString(e uint64) string { return strconv.FormatUint(e, 10) }

func (h *Handler) capabilities(ctx context.Context, c call) result {
	if e := decodeArgs(c.raw, &api.CapabilitiesArgs{}); e != nil {
		return fail(e)
	}
	info := h.ph.Info()
	buttons := []string{}
	for _, b := range info.Buttons {
		buttons = append(buttons, string(b))
	}
	return result{answer: control.OK(map[string]any{
		"platform": string(info.Platform), "backend": info.Backend,
		"keyboard": info.Keyboard, "touch": info.Touch, "screenshot": info.Screenshot,
		"buttons": buttons, "keys": api.KeyNames(), "modifiers": api.Modifier("").Enum(),
		"type_text":   map[string]any{"max_chars": api.MaxText, "charset": "printable US ASCII"},
		"gestures":    map[string]any{"tap": true, "long_press_seconds": []float64{api.MinGesture, api.MaxGesture}, "swipe_seconds": []float64{api.MinGesture, api.MaxGesture}, "swipe_hold": []float64{0, api.MaxGesture}, "multitouch": false},
		"screenshots": map[string]any{"formats": api.ImageFormat("").Enum(), "max_size": []int{api.MinImageSize, api.MaxImageSize}, "default_max_size": api.DefaultMaxSize},
		"launch_app":  len(info.Apps) > 0, "open_url": []string{"http", "https"},
	})}
}

// frameFields describes a screenshot as sent.
func (h *Handler) frameFields(shot control.Shot, enc *encoded, format api.ImageFormat) map[string]any {
	b := shot.Frame.Image.Bounds()
	age := h.ctl.Now().Sub(shot.Frame.Captured)
	if shot.Frame.Captured.IsZero() || age < 0 {
		age = 0
	}
	return map[string]any{"frame_id": shot.ID, "geometry_epoch": shot.Epoch,
		"width": enc.width, "height": enc.height, "native_width": b.Dx(), "native_height": b.Dy(),
		"age_ms": age.Milliseconds(), "format": format}
}

// shoot takes a screenshot for c (it becomes c's latest frame) and
// encodes it.
func (h *Handler) shoot(ctx context.Context, c call, format api.ImageFormat, size int) (map[string]any, *encoded, *control.Error) {
	shot, err := h.ctl.Screenshot(ctx, c.client)
	if err != nil {
		return nil, nil, control.PhoneError(err)
	}
	enc, err := h.images.encode(shot.Frame, string(format), size)
	if err != nil {
		return nil, nil, api.Errorf(api.CodeCaptureFailed, "%v", err)
	}
	return h.frameFields(shot, enc, format), enc, nil
}

func (h *Handler) screenshot(ctx context.Context, c call) result {
	var args api.ScreenshotArgs
	if e := decodeArgs(c.raw, &args); e != nil {
		return fail(e)
	}
	format, size, e := checkScreenshot(args)
	if e != nil {
		return fail(e)
	}
	fields, enc, e := h.shoot(ctx, c, format, size)
	if e != nil {
		return fail(e)
	}
	return result{answer: control.OK(fields), image: enc}
}

func (h *Handler) apps(ctx context.Context, c call) result {
	var args api.AppsArgs
	if e := decodeArgs(c.raw, &args); e != nil {
		return fail(e)
	}
	if e := api.Length(api.ToolApps, "query", args.Query); e != nil {
		return fail(e)
	}
	q := strings.ToLower(strings.TrimSpace(args.Query))
	apps := []map[string]any{}
	for _, a := range h.ph.Info().Apps {
		if q == "" || strings.Contains(strings.ToLower(a.Name), q) || strings.Contains(strings.ToLower(a.ID), q) {
			apps = append(apps, map[string]any{"bundle_id": a.ID, "name": a.Name})
		}
	}
	return result{answer: control.OK(map[string]any{"apps": apps, "query": args.Query, "matched": len(apps)})}
}

func (h *Handler) deviceInfo(ctx context.Context, c call) result {
	if e := decodeArgs(c.raw, &api.DeviceInfoArgs{}); e != nil {
		return fail(e)
	}
	info, st := h.ph.Info(), h.ph.State()
	return result{answer: control.OK(map[string]any{"model": info.Model, "platform": string(info.Platform),
		"backend": info.Backend, "native_width": info.Native.X, "native_height": info.Native.Y,
		"ready": st.Ready, "state": st.Code, "reason": st.Reason})}
}

func (h *Handler) operationStatus(ctx context.Context, c call) result {
	var args api.OperationStatusArgs
	if e := decodeArgs(c.raw, &args); e != nil {
		return fail(e)
	}
	if e := required("operation_id", args.OperationID); e != nil {
		return fail(e)
	}
	id, e := opID(args.OperationID)
	if e != nil {
		return fail(e)
	}
	op, e := h.ctl.OperationStatus(ctx, c.client, id)
	if e != nil {
		return fail(e)
	}
	rec := map[string]any{"id": op.ID, "tool": op.Tool, "state": op.State, "code": op.Code,
		"created_ms": op.Created.UnixMilli(), "updated_ms": op.Updated.UnixMilli()}
	if op.Answer != "" {
		var stored map[string]any
		if json.Unmarshal([]byte(op.Answer), &stored) == nil {
			rec["answer"] = stored
		}
	}
	return result{answer: control.OK(map[string]any{"operation": rec})}
}

func (h *Handler) watch(ctx context.Context, c call) result {
	var args api.WatchArgs
	if e := decodeArgs(c.raw, &args); e != nil {
		return fail(e)
	}
	req, e := checkWatch(args)
	if e != nil {
		return fail(e)
	}
	res, e := h.ctl.Watch(ctx, c.client, req)
	if e != nil {
		return fail(e)
	}
	evs := res.Events
	if evs == nil {
		evs = []map[string]any{}
	}
	a := control.OK(map[string]any{"events": evs, "cursor": res.Cursor})
	if res.Revoked {
		a.Set("ended", "grant_revoked")
	}
	return result{answer: a}
}

func (h *Handler) pause(ctx context.Context, c call) result {
	var args api.PauseArgs
	if e := decodeArgs(c.raw, &args); e != nil {
		return refuse(e)
	}
	id, e := opID(args.OperationID)
	if e != nil {
		return refuse(e)
	}
	a := h.ctl.Do(ctx, control.Call{Client: c.client, Tool: "openlolo_pause", OperationID: id, Args: args,
		Run: func(ctx context.Context) (map[string]any, error) {
			if err := h.ctl.Pause(ctx, c.client.Name); err != nil {
				return nil, err
			}
			return map[string]any{"paused": true}, nil
		}})
	return result{answer: a}
}

func (h *Handler) control(ctx context.Context, c call) result {
	var args api.ControlArgs
	if e := decodeArgs(c.raw, &args); e != nil {
		return refuse(e)
	}
	if !slices.Contains(args.Command.Enum(), string(args.Command)) {
		return refuse(invalid("command must be acquire, renew, release or resume, not %q", api.Clip(string(args.Command))))
	}
	id, e := opID(args.OperationID)
	if e != nil {
		return refuse(e)
	}
	args.OperationID = ""
	a := h.ctl.Do(ctx, control.Call{Client: c.client, Tool: "openlolo_control", OperationID: id, Args: args,
		Check: func() *control.Error { return h.ctl.CheckCommand(c.client, string(args.Command)) },
		Run: func(ctx context.Context) (map[string]any, error) {
			return h.ctl.ControlCommand(ctx, c.client, string(args.Command))
		}})
	return result{answer: a}
}

func (h *Handler) cancel(ctx context.Context, c call) result {
	var args api.CancelArgs
	if e := decodeArgs(c.raw, &args); e != nil {
		return refuse(e)
	}
	if e := required("target", args.Target); e != nil {
		return refuse(e)
	}
	target, e := opID(args.Target)
	if e != nil {
		return refuse(invalid("target must be an operation_id (a UUID)"))
	}
	id, e := opID(args.OperationID)
	if e != nil {
		return refuse(e)
	}
	args.OperationID = ""
	a := h.ctl.Do(ctx, control.Call{Client: c.client, Tool: "openlolo_cancel", OperationID: id, Args: args,
		Check: func() *control.Error {
			_, e := h.ctl.OperationStatus(ctx, c.client, target)
			return e
		},
		Run: func(ctx context.Context) (map[string]any, error) {
			return h.ctl.Cancel(ctx, c.client, target)
		}})
	return result{answer: a}
}

// reportFields is how an input was delivered: the reports written, the
// time it took and, for gestures, the cadence achieved on the monotonic
// clock (median interval and largest gap between movement reports, and the
// stale points skipped rather than sent in a burst).
func reportFields(rep phone.Report) map[string]any {
	f := map[string]any{"reports": rep.Reports, "took_ms": rep.Took.Milliseconds()}
	if rep.MedianInterval > 0 || rep.MaxGap > 0 {
		f["cadence"] = map[string]any{
			"median_interval_ms": float64(rep.MedianInterval.Microseconds()) / 1000,
			"max_gap_ms":         float64(rep.MaxGap.Microseconds()) / 1000,
			"skipped":            rep.Skipped,
		}
	}
	return f
}

// input runs an input action through the rules and adds the observation.
func (h *Handler) input(ctx context.Context, c call, tool string, o inputOpts, args any, frame *control.FrameRef,
	run func(ctx context.Context) (phone.Report, error)) result {
	a := h.ctl.Do(ctx, control.Call{Client: c.client, Tool: tool, OperationID: o.opID, Args: args, Input: true, Frame: frame,
		Run: func(ctx context.Context) (map[string]any, error) {
			rep, err := run(ctx)
			if err != nil {
				return nil, err
			}
			return reportFields(rep), nil
		}})
	r := result{answer: a}
	if a.Status != api.StatusOK || !o.observe {
		return r
	}
	if o.settle > 0 {
		t := time.NewTimer(time.Duration(o.settle * float64(time.Second)))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	fields, enc, e := h.shoot(ctx, c, api.FormatJPEG, api.DefaultMaxSize)
	if e != nil {
		r.answer.Set("observation_error", e)
		return r
	}
	r.answer.Set("observation", fields)
	r.image = enc
	return r
}

func (h *Handler) tap(ctx context.Context, c call) result {
	var args api.TapArgs
	o, e := decodeInput(api.ToolTap, c.raw, &args)
	if e != nil {
		return refuse(e)
	}
	ref, p, e := checkFrame(api.ToolTap, args.FrameArgs)
	if e != nil {
		return refuse(e)
	}
	return h.input(ctx, c, string(api.ToolTap), o, args, &ref, func(ctx context.Context) (phone.Report, error) {
		return h.ph.Touch(ctx, phone.Tap(p, tapHold))
	})
}

func (h *Handler) longPress(ctx context.Context, c call) result {
	var args api.LongPressArgs
	o, e := decodeInput(api.ToolLongPress, c.raw, &args)
	if e != nil {
		return refuse(e)
	}
	ref, p, e := checkFrame(api.ToolLongPress, args.FrameArgs)
	if e != nil {
		return refuse(e)
	}
	secs, e := api.Number(api.ToolLongPress, "seconds", args.Seconds)
	if e != nil {
		return refuse(e)
	}
	return h.input(ctx, c, string(api.ToolLongPress), o, args, &ref, func(ctx context.Context) (phone.Report, error) {
		return h.ph.Touch(ctx, phone.Tap(p, seconds(secs)))
	})
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func (h *Handler) swipe(ctx context.Context, c call) result {
	var args api.SwipeArgs
	o, e := decodeInput(api.ToolSwipe, c.raw, &args)
	if e != nil {
		return refuse(e)
	}
	ref, from, e := checkFrame(api.ToolSwipe, args.FrameArgs)
	if e != nil {
		return refuse(e)
	}
	var to phone.Point
	var secs, hold float64
	for _, f := range []struct {
		name string
		v    *float64
		out  *float64
	}{{"x2", args.X2, &to.X}, {"y2", args.Y2, &to.Y}, {"seconds", args.Seconds, &secs}, {"hold", args.Hold, &hold}} {
		if *f.out, e = api.Number(api.ToolSwipe, f.name, f.v); e != nil {
			return refuse(e)
		}
	}
	g := phone.Swipe(from, to, dwell, seconds(secs), seconds(hold), swipeRate)
	return h.input(ctx, c, string(api.ToolSwipe), o, args, &ref, func(ctx context.Context) (phone.Report, error) {
		return h.ph.Touch(ctx, g)
	})
}

func (h *Handler) typeText(ctx context.Context, c call) result {
	var args api.TypeTextArgs
	o, e := decodeInput(api.ToolTypeText, c.raw, &args)
	if e != nil {
		return refuse(e)
	}
	text, e := checkText(args.Text)
	if e != nil {
		return refuse(e)
	}
	return h.input(ctx, c, string(api.ToolTypeText), o, args, nil, func(ctx context.Context) (phone.Report, error) {
		return h.ph.Type(ctx, text)
	})
}

func (h *Handler) key(ctx context.Context, c call) result {
	var args api.KeyArgs
	o, e := decodeInput(api.ToolKey, c.raw, &args)
	if e != nil {
		return refuse(e)
	}
	k, e := checkKey(args)
	if e != nil {
		return refuse(e)
	}
	return h.input(ctx, c, string(api.ToolKey), o, args, nil, func(ctx context.Context) (phone.Report, error) {
		return h.ph.Key(ctx, k)
	})
}

func (h *Handler) button(ctx context.Context, c call) result {
	var args api.ButtonArgs
	o, e := decodeInput(api.ToolButton, c.raw, &args)
	if e != nil {
		return refuse(e)
	}
	b, e := checkButton(args.Button)
	if e != nil {
		return refuse(e)
	}
	if !h.ph.Info().HasButton(b) {
		return refuse(api.Errorf(api.CodeUnsupportedButton, "this phone has no %s button", b))
	}
	return h.input(ctx, c, string(api.ToolButton), o, args, nil, func(ctx context.Context) (phone.Report, error) {
		return h.ph.Press(ctx, b)
	})
}

// steps runs phone actions in order, pausing between them on real phones.
func (h *Handler) steps(ctx context.Context, fns ...func(ctx context.Context) (phone.Report, error)) (phone.Report, error) {
	var total phone.Report
	start := time.Now()
	pause := h.ph.Info().Backend != "sim"
	for i, fn := range fns {
		if i > 0 && pause {
			t := time.NewTimer(stepPause)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return total, ctx.Err()
			}
		}
		rep, err := fn(ctx)
		total.Reports += rep.Reports
		if err != nil {
			return total, err
		}
	}
	total.Took = time.Since(start)
	return total, nil
}

// openApp opens app through the phone's search: Home, search (cmd+space),
// the app's display name, Enter.
func (h *Handler) openApp(app phone.App) []func(ctx context.Context) (phone.Report, error) {
	return []func(ctx context.Context) (phone.Report, error){
		func(ctx context.Context) (phone.Report, error) { return h.ph.Press(ctx, phone.Home) },
		func(ctx context.Context) (phone.Report, error) {
			return h.ph.Key(ctx, phone.Key{Name: "space", Mods: phone.Cmd})
		},
		func(ctx context.Context) (phone.Report, error) { return h.ph.Type(ctx, app.Name) },
		func(ctx context.Context) (phone.Report, error) { return h.ph.Key(ctx, phone.Key{Name: "enter"}) },
	}
}

func (h *Handler) launchApp(ctx context.Context, c call) result {
	var args api.LaunchAppArgs
	o, e := decodeInput(api.ToolLaunchApp, c.raw, &args)
	if e != nil {
		return refuse(e)
	}
	ref := args.BundleID
	if ref == "" {
		ref = args.Name
	}
	app, e := findApp(h.ph.Info().Apps, ref)
	if e != nil {
		return refuse(e)
	}
	if _, e := checkText(&app.Name); e != nil {
		return refuse(api.Errorf(api.CodeUnsupported, "the app's name %q cannot be typed into search", app.Name))
	}
	r := h.input(ctx, c, string(api.ToolLaunchApp), o, args, nil, func(ctx context.Context) (phone.Report, error) {
		return h.steps(ctx, h.openApp(app)...)
	})
	if r.answer.Status == api.StatusOK {
		r.answer.Set("app", map[string]any{"bundle_id": app.ID, "name": app.Name})
	}
	return r
}

// safariID is the browser open_url uses.
const safariID = "com.apple.mobilesafari"

func (h *Handler) openURL(ctx context.Context, c call) result {
	var args api.OpenURLArgs
	o, e := decodeInput(api.ToolOpenURL, c.raw, &args)
	if e != nil {
		return refuse(e)
	}
	u, e := checkURL(args.URL)
	if e != nil {
		return refuse(e)
	}
	safari, e := findApp(h.ph.Info().Apps, safariID)
	if e != nil {
		return refuse(api.Errorf(api.CodeUnsupported, "this phone's app catalog has no Safari to open URLs in"))
	}
	fns := append(h.openApp(safari),
		func(ctx context.Context) (phone.Report, error) {
			return h.ph.Key(ctx, phone.Key{Name: "l", Mods: phone.Cmd})
		},
		func(ctx context.Context) (phone.Report, error) { return h.ph.Type(ctx, u) },
		func(ctx context.Context) (phone.Report, error) { return h.ph.Key(ctx, phone.Key{Name: "enter"}) },
	)
	return h.input(ctx, c, string(api.ToolOpenURL), o, args, nil, func(ctx context.Context) (phone.Report, error) {
		return h.steps(ctx, fns...)
	})
}
