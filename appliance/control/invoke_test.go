package control_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/picture"
)

// ownerTouch is the box page's tap at (x, y): it names no frame, so it
// touches the owner's own latest. It asks for no observation, so every
// screenshot the phone takes is one the tap took for its frame.
func ownerTouch(x, y float64) control.Request {
	return control.Request{Client: control.Owner(), Tool: api.ToolTap, Args: api.TapArgs{
		InputOptions: api.InputOptions{Observe: ptr(false)}, FrameArgs: api.FrameArgs{X: &x, Y: &y}}}
}

// outcome is r's answer without its result, for wantCode.
func outcome(r control.Invoked) control.Answer[struct{}] {
	return control.Answer[struct{}]{Outcome: r.Outcome}
}

// The owner's tap through Invoke touches the frame the live view showed
// the owner (Screen) and takes no screenshot of its own; before
// Invoke, the box page's tap took a new screenshot only for a frame id.
func TestOwnerTapUsesTheLiveFrame(t *testing.T) {
	e := newEnv(t, control.Limits{})
	ctx := context.Background()
	if _, err := e.svc.Screen(ctx, picture.Square(960), 70); err != nil { // the live view's picture
		t.Fatal(err)
	}
	shots, inputs := e.ph.Screenshots(), e.ph.Inputs()
	wantCode(t, outcome(e.svc.Invoke(ctx, ownerTouch(0.5, 0.5))), "")
	if got := e.ph.Screenshots() - shots; got != 0 {
		t.Fatalf("the owner's tap took %d screenshots, want 0 (it touches the live view's frame)", got)
	}
	if e.ph.Inputs() != inputs+1 {
		t.Fatalf("the owner's tap reached the phone %d times, want 1", e.ph.Inputs()-inputs)
	}
	// The phone's screen changed with the tap; the live view shows it
	// and the next tap touches that frame, again without a capture.
	if _, err := e.svc.Screen(ctx, picture.Square(960), 70); err != nil {
		t.Fatal(err)
	}
	shots = e.ph.Screenshots()
	wantCode(t, outcome(e.svc.Invoke(ctx, ownerTouch(0.2, 0.8))), "")
	if got := e.ph.Screenshots() - shots; got != 0 {
		t.Fatalf("the owner's second tap took %d screenshots, want 0", got)
	}
}

// The owner touches the live picture, which moves on by itself: a touch
// named on a frame the live view has since replaced (same geometry) runs,
// while a client's touch on a frame it has replaced is FRAME_EXPIRED.
func TestOwnerTouchOutlivesTheLiveView(t *testing.T) {
	e := newEnv(t, control.Limits{})
	ctx := context.Background()
	if _, err := e.svc.Screen(ctx, picture.Square(960), 70); err != nil {
		t.Fatal(err)
	}
	fa, ferr := e.svc.OwnerFrame(ctx, "", 0.5, 0.5)
	if ferr != nil {
		t.Fatal(ferr)
	}
	wantCode(t, outcome(e.svc.Invoke(ctx, control.Request{Client: control.Owner(), Tool: api.ToolKey, Args: api.KeyArgs{Key: "a"}})), "")
	if _, err := e.svc.Screen(ctx, picture.Square(960), 70); err != nil { // a newer picture
		t.Fatal(err)
	}
	wantCode(t, outcome(e.svc.Invoke(ctx, control.Request{Client: control.Owner(), Tool: api.ToolTap, Args: api.TapArgs{FrameArgs: fa}})), "")

	if err := e.svc.GiveBack(ctx); err != nil {
		t.Fatal(err)
	}
	old := e.svc.Screenshot(ctx, alice, api.ScreenshotArgs{})
	if old.Shot == nil {
		t.Fatalf("alice's screenshot: %+v", old.Error)
	}
	x, y := 0.5, 0.5
	tap := api.TapArgs{FrameArgs: api.FrameArgs{FrameID: old.Shot.ID, GeometryEpoch: api.Epoch(old.Shot.Epoch), X: &x, Y: &y}}
	wantCode(t, outcome(e.svc.Invoke(ctx, control.Request{Client: alice, Tool: api.ToolKey, Args: api.KeyArgs{Key: "a"}})), "")
	if r := e.svc.Screenshot(ctx, alice, api.ScreenshotArgs{}); r.Shot == nil {
		t.Fatalf("alice's second screenshot: %+v", r.Error)
	}
	wantCode(t, outcome(e.svc.Invoke(ctx, control.Request{Client: alice, Tool: api.ToolTap, Args: tap})), api.CodeFrameExpired)
}

// The owner's tap when no page showed the phone lately (no live view)
// takes the one screenshot it needs as the owner's frame.
func TestOwnerTapWithoutLiveView(t *testing.T) {
	e := newEnv(t, control.Limits{})
	ctx := context.Background()
	shots := e.ph.Screenshots()
	wantCode(t, outcome(e.svc.Invoke(ctx, ownerTouch(0.5, 0.5))), "")
	if got := e.ph.Screenshots() - shots; got != 1 {
		t.Fatalf("the owner's tap without a live view took %d screenshots, want 1", got)
	}
}

// Invoke answers what it cannot run with a stable code and runs nothing:
// an unknown tool, arguments of another type than the tool's, an entry's
// refusal (counted nowhere) and arguments the entry could not read
// (counted against the rate window); a mutating tool's refusal says
// nothing was dispatched. Each is recorded for Activity.
func TestInvokeRefusals(t *testing.T) {
	e := newEnv(t, control.Limits{CallsPerMinute: 2})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		req  control.Request
		code api.Code
	}{
		{"unknown tool", control.Request{Client: alice, Tool: "openlolo_fly"}, api.CodeInvalidArguments},
		{"wrong type", control.Request{Client: alice, Tool: api.ToolKey, Args: api.ButtonArgs{Button: "home"}}, api.CodeInternal},
		{"refused", control.Request{Client: alice, Tool: api.ToolKey, Args: api.KeyArgs{Key: "a"},
			Refused: api.Errorf(api.CodeScopeRequired, "no scope")}, api.CodeScopeRequired},
		{"unreadable", control.Request{Client: alice, Tool: api.ToolKey, Sent: json.RawMessage(`{"key":1}`),
			Unreadable: api.Errorf(api.CodeInvalidArguments, "key must be a string")}, api.CodeInvalidArguments},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.svc.Invoke(ctx, tc.req)
			wantCode(t, outcome(r), tc.code)
			if control.Mutating(tc.req.Tool) && (r.Dispatched == nil || *r.Dispatched) {
				t.Fatalf("%s: dispatched = %v, want false", tc.name, r.Dispatched)
			}
		})
	}
	if e.ph.Inputs() != 0 {
		t.Fatalf("refused calls reached the phone %d times", e.ph.Inputs())
	}
	// Only the unreadable call counted: one call of two is left.
	if left := e.svc.CallsLeft(alice); left != 1 {
		t.Fatalf("calls left = %d, want 1 (only the unreadable call counts)", left)
	}
	if err := e.svc.FlushCalls(ctx); err != nil {
		t.Fatal(err)
	}
	acts, err := e.svc.RecentActions(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, a := range acts {
		codes = append(codes, a.Code)
	}
	if got := strings.Join(codes, " "); strings.Count(got, "INVALID_ARGUMENTS") != 2 || !strings.Contains(got, "INTERNAL") || !strings.Contains(got, "SCOPE_REQUIRED") {
		t.Fatalf("recorded codes = %q, want each refusal's", got)
	}
}
