package control_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

// TestSendTextPastesUnicode: send_text pastes any Unicode into the focused
// field through the clipboard and cmd+V, says it replaced the clipboard,
// and openlolo_clipboard reads the text back.
func TestSendTextPastesUnicode(t *testing.T) {
	ctx := context.Background()
	svc, ph := textService(t, nil, control.Limits{})
	if rep := svc.LaunchApp(ctx, alice, api.LaunchAppArgs{InputOptions: quiet, BundleID: "Notes"}); rep.Error != nil {
		t.Fatal(rep.Error)
	}
	caps := svc.Capabilities(ctx, alice, api.CapabilitiesArgs{}).Result.Clipboard
	if !caps.Available || caps.Paste != "cmd+v" || caps.MaxChars != api.MaxSendText || caps.Reason != "" {
		t.Fatalf("capabilities' clipboard on the sim: %+v", caps)
	}
	text := "héllo ✓ 日本\nsecond line 🙂"
	rep := svc.SendText(ctx, alice, api.SendTextArgs{Text: &text})
	if rep.Error != nil {
		t.Fatal(rep.Error)
	}
	if r := rep.Result; !r.ClipboardReplaced || r.Characters != 24 || r.Reports == 0 || rep.Shot == nil {
		t.Fatalf("send_text result %+v, observation %v", r, rep.Shot != nil)
	}
	if got := ph.NoteText(); got != text {
		t.Fatalf("the note is %q, want %q", got, text)
	}
	cb := svc.Clipboard(ctx, alice, api.ClipboardArgs{})
	if cb.Error != nil || cb.Result.Text != text || cb.Result.Characters != 24 {
		t.Fatalf("clipboard %+v %v", cb.Result, cb.Error)
	}
	// 10,000 characters of three bytes each is within the limit.
	long := strings.Repeat("日", api.MaxSendText)
	if rep := svc.SendText(ctx, alice, api.SendTextArgs{InputOptions: quiet, Text: &long}); rep.Error != nil {
		t.Fatalf("10,000 characters: %v", rep.Error)
	}
}

// TestSendTextRefusals: a test per code send_text and clipboard give;
// nothing reaches the phone when refused.
func TestSendTextRefusals(t *testing.T) {
	ctx := context.Background()
	tooLong := strings.Repeat("é", api.MaxSendText+1)
	for _, tc := range []struct {
		name string
		text *string
		lim  control.Limits
		prep func(svc *control.Service, ph *sim.Phone)
		code api.Code
	}{
		{name: "no text", code: api.CodeInvalidArguments},
		{name: "empty", text: sp(""), code: api.CodeInvalidArguments},
		{name: "too long", text: &tooLong, code: api.CodeInvalidArguments},
		{name: "NUL", text: sp("a\x00b"), code: api.CodeInvalidArguments},
		{name: "not UTF-8", text: sp("a\xffb"), code: api.CodeInvalidArguments},
		{name: "paused", text: sp("x"), prep: func(svc *control.Service, _ *sim.Phone) { svc.Pause(ctx, "test") }, code: api.CodePaused},
		{name: "busy", text: sp("x"), prep: func(svc *control.Service, _ *sim.Phone) {
			svc.Control(ctx, bob, api.ControlArgs{Command: api.CommandAcquire})
		}, code: api.CodeControlBusy},
		{name: "rate", text: sp("x"), lim: control.Limits{CallsPerMinute: 1}, prep: func(svc *control.Service, _ *sim.Phone) {
			svc.Status(ctx, alice, api.StatusArgs{})
		}, code: api.CodeRateLimited},
		{name: "phone gone", text: sp("x"), prep: func(_ *control.Service, ph *sim.Phone) { ph.Close() }, code: api.CodePhoneUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, ph := textService(t, nil, tc.lim)
			if tc.prep != nil {
				tc.prep(svc, ph)
			}
			rep := svc.SendText(ctx, alice, api.SendTextArgs{Text: tc.text})
			if rep.Error == nil || rep.Error.Code != tc.code {
				t.Fatalf("got %+v, want %s", rep.Outcome, tc.code)
			}
			if cb, _ := ph.Clipboard(ctx); cb != "" {
				t.Errorf("a refused send_text set the clipboard to %q", cb)
			}
		})
	}
	// Reading: rate limited, phone gone.
	svc, _ := textService(t, nil, control.Limits{CallsPerMinute: 1})
	svc.Status(ctx, alice, api.StatusArgs{})
	if cb := svc.Clipboard(ctx, alice, api.ClipboardArgs{}); cb.Error == nil || cb.Error.Code != api.CodeRateLimited {
		t.Errorf("clipboard over the rate: %+v", cb.Outcome)
	}
	svc, ph := textService(t, nil, control.Limits{})
	ph.Close()
	if cb := svc.Clipboard(ctx, alice, api.ClipboardArgs{}); cb.Error == nil || cb.Error.Code != api.CodePhoneUnavailable {
		t.Errorf("clipboard of a closed phone: %+v", cb.Outcome)
	}

	// A failing clipboard: the input failed, no paste key was sent.
	fake := controltest.New(nil)
	fake.SetNative(phone.Capabilities{Clipboard: true})
	fsvc := serviceOn(t, fake)
	fake.FailInputs(phone.ErrInputFailed)
	if rep := fsvc.SendText(ctx, alice, api.SendTextArgs{InputOptions: quiet, Text: sp("x")}); rep.Error == nil || rep.Error.Code != api.CodeInputFailed {
		t.Errorf("failing clipboard: %+v", rep.Outcome)
	}
}

// TestClipboardToolsOnAGadget: a backend without a clipboard (the USB
// gadget) refuses both tools with UNSUPPORTED before anything is sent,
// and capabilities says why.
func TestClipboardToolsOnAGadget(t *testing.T) {
	ctx := context.Background()
	g := &gadget{Phone: newSim(t)}
	svc := serviceOn(t, g)
	caps := svc.Capabilities(ctx, alice, api.CapabilitiesArgs{}).Result
	if caps.Clipboard.Available || caps.Native.Clipboard || !strings.Contains(caps.Clipboard.Reason, "gadget") || caps.Clipboard.Paste != "" {
		t.Fatalf("gadget capabilities: %+v", caps.Clipboard)
	}
	before := g.NoteText()
	rep := svc.SendText(ctx, alice, api.SendTextArgs{Text: sp("héllo")})
	if rep.Error == nil || rep.Error.Code != api.CodeUnsupported || *rep.Dispatched || g.NoteText() != before {
		t.Fatalf("send_text on a gadget: %+v", rep.Outcome)
	}
	if cb := svc.Clipboard(ctx, alice, api.ClipboardArgs{}); cb.Error == nil || cb.Error.Code != api.CodeUnsupported {
		t.Fatalf("clipboard on a gadget: %+v", cb.Outcome)
	}
	if ok, _ := control.ClipboardOffered(g.Info()); ok {
		t.Error("ClipboardOffered on a gadget")
	}
}
