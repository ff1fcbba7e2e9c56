package control

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/openlolo/openlolo/api"
)

// Request is one call of a tool through [Service.Invoke].
type Request struct {
	Client Client
	Tool   api.Tool
	// Args are the tool's arguments as its api type (api.TapArgs for
	// openlolo_tap). A touch of the owner ([Owner]) may name no frame:
	// it then touches the owner's own latest frame, the picture the box
	// page shows ([Service.OwnerFrame]).
	Args any
	// Sent is the arguments as the caller sent them, summarized in the
	// call's record; nil records Args (the box page sends no JSON).
	Sent json.RawMessage
	// Refused, when set, is the entry's refusal of the call before any
	// verb runs (SCOPE_REQUIRED): it is the answer, and the call is
	// recorded; it does not count against the rate window.
	Refused *Error
	// Unreadable, when set, says why the entry could not decode the
	// arguments (INVALID_ARGUMENTS): it is the answer, and the call
	// counts against the rate window as [Unreadable] says.
	Unreadable *Error
	// Deliver, when set, finishes the reply before the call is recorded
	// (MCP encodes its pictures, which may fail the answer), so the
	// record says what the caller was told.
	Deliver func(*Invoked)
}

// Invoked is a verb's [Reply] as [Service.Invoke] returns it: Result,
// when set, is the tool's *R; [Typed] gives the reply its type back.
type Invoked struct {
	api.Outcome
	Result    any
	Shot      *Shot
	Pages     *Pages
	ShotError *Error
}

// verb is one tool's verb as Invoke runs it.
type verb struct {
	args     reflect.Type // the tool's api argument type
	mutating bool         // the verb journals its calls as operations
	run      func(ctx context.Context, s *Service, c Client, args any) Invoked
}

// verbOf makes a table entry of v, a verb taking A and answering R.
func verbOf[A, R any](v func(*Service, context.Context, Client, A) Reply[R], mutating bool) verb {
	return verb{args: reflect.TypeFor[A](), mutating: mutating,
		run: func(ctx context.Context, s *Service, c Client, args any) Invoked {
			return Untyped(v(s, ctx, c, args.(A)))
		}}
}

// verbs is Invoke's table: every tool's verb. A new tool is a verb and
// one line here.
func verbs() map[api.Tool]verb {
	const read, mutates = false, true
	return map[api.Tool]verb{
		api.ToolStatus:          verbOf((*Service).Status, read),
		api.ToolCapabilities:    verbOf((*Service).Capabilities, read),
		api.ToolScreenshot:      verbOf((*Service).Screenshot, read),
		api.ToolApps:            verbOf((*Service).Apps, read),
		api.ToolDeviceInfo:      verbOf((*Service).DeviceInfo, read),
		api.ToolOperationStatus: verbOf((*Service).OperationStatus, read),
		api.ToolWatch:           verbOf((*Service).Watch, read),
		api.ToolPause:           verbOf((*Service).PauseInput, mutates),
		api.ToolTap:             verbOf((*Service).Tap, mutates),
		api.ToolLongPress:       verbOf((*Service).LongPress, mutates),
		api.ToolSwipe:           verbOf((*Service).Swipe, mutates),
		api.ToolTypeText:        verbOf((*Service).TypeText, mutates),
		api.ToolKey:             verbOf((*Service).Key, mutates),
		api.ToolButton:          verbOf((*Service).Button, mutates),
		api.ToolLaunchApp:       verbOf((*Service).LaunchApp, mutates),
		api.ToolOpenURL:         verbOf((*Service).OpenURL, mutates),
		api.ToolControl:         verbOf((*Service).Control, mutates),
		api.ToolCancel:          verbOf((*Service).Cancel, mutates),
		api.ToolShortcut:        verbOf((*Service).Shortcut, mutates),
		api.ToolFindText:        verbOf((*Service).FindText, read),
		api.ToolAppProfiles:     verbOf((*Service).AppProfiles, read),
		api.ToolAppProfile:      verbOf((*Service).AppProfile, read),
		api.ToolOpenLink:        verbOf((*Service).OpenLink, mutates),
		api.ToolFullPage:        verbOf((*Service).FullPage, mutates),
		api.ToolSendText:        verbOf((*Service).SendText, mutates),
		api.ToolClipboard:       verbOf((*Service).Clipboard, read),
		api.ToolElements:        verbOf((*Service).Elements, read),
		api.ToolPhones:          verbOf((*Service).Phones, read),
	}
}

// Mutating reports whether tool's calls are operations (an operation_id,
// the journal, dispatched in the answer); false for a tool Invoke does
// not know.
func Mutating(tool api.Tool) bool { return verbs()[tool].mutating }

// ArgsType is the api argument type tool's verb takes (api.TapArgs for
// openlolo_tap): what an entry decodes a call's arguments into. nil for a
// tool Invoke does not know.
func ArgsType(tool api.Tool) reflect.Type { return verbs()[tool].args }

// Invoke is the one entry into the verbs: MCP's tools/call and the box
// page's live view (as the owner) both call it. It answers the entry's
// refusal or runs the tool's verb under the rules, lets the entry finish
// the reply (Deliver), and records the call for Activity.
func (s *Service) Invoke(ctx context.Context, req Request) Invoked {
	rep := s.answer(ctx, req)
	if req.Deliver != nil {
		req.Deliver(&rep)
	}
	s.record(ctx, req, rep.Outcome)
	return rep
}

// answer is the call's reply: a refusal (the entry's, an unknown tool,
// arguments of the wrong type, the owner's frame) or the verb's.
func (s *Service) answer(ctx context.Context, req Request) Invoked {
	v, ok := s.verbs[req.Tool]
	refuse := func(e *Error) Invoked {
		if v.mutating {
			return Invoked{Outcome: Refuse[struct{}](e).Outcome}
		}
		return Invoked{Outcome: Fail[struct{}](e).Outcome}
	}
	switch {
	case req.Refused != nil:
		return refuse(req.Refused)
	case !ok:
		return refuse(api.Errorf(api.CodeInvalidArguments, "the box has no tool %q", api.Clip(string(req.Tool))))
	case req.Unreadable != nil:
		return Invoked{Outcome: Unreadable[struct{}](s, req.Client, req.Tool, v.mutating, req.Unreadable).Outcome}
	case reflect.TypeOf(req.Args) != v.args:
		return refuse(api.Errorf(api.CodeInternal, "%s was called with %T, not %s", req.Tool, req.Args, v.args))
	}
	args := req.Args
	s, e := s.view(req.Client, req.Tool, args)
	if e != nil {
		return refuse(e)
	}
	if req.Client.IsOwner() {
		var e *Error
		if args, e = s.ownerTouch(ctx, args); e != nil {
			return refuse(e)
		}
	}
	return v.run(ctx, s, req.Client, args)
}

// record records the call for Activity with the arguments as sent.
func (s *Service) record(ctx context.Context, req Request, out api.Outcome) {
	sent := req.Sent
	if sent == nil {
		sent, _ = json.Marshal(req.Args)
	}
	s.recordCall(ctx, req.Client, req.Tool, out, s.phoneOf(req.Args), sent)
}

// Typed is a reply of [Service.Invoke] with the tool's result type R
// back. A result of another type is dropped (the answer keeps its
// outcome).
func Typed[R any](r Invoked) Reply[R] {
	out := Reply[R]{Answer: Answer[R]{Outcome: r.Outcome}, Shot: r.Shot, Pages: r.Pages, ShotError: r.ShotError}
	out.Result, _ = r.Result.(*R)
	return out
}

// Untyped is r as [Service.Invoke] returns it. An entry that finished a
// [Typed] reply (MCP's Deliver) hands it back so.
func Untyped[R any](r Reply[R]) Invoked {
	out := Invoked{Outcome: r.Outcome, Shot: r.Shot, Pages: r.Pages, ShotError: r.ShotError}
	if r.Result != nil {
		out.Result = r.Result
	}
	return out
}
