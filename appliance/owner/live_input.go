package owner

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// InputKind names one kind of the owner's input on the live phone.
type InputKind string

// The owner's inputs.
const (
	InputTap       InputKind = "tap"
	InputLongPress InputKind = "long_press"
	InputSwipe     InputKind = "swipe"
	InputText      InputKind = "text"
	InputButton    InputKind = "button"
	InputKey       InputKind = "key"
)

// Input is one input the owner makes on the Status page's live phone.
type Input struct {
	Kind InputKind
	// X and Y are where a tap, a long press or a swipe starts, as
	// fractions of the screen (0..1); X2 and Y2 where a swipe ends.
	X, Y, X2, Y2 float64
	// Seconds is a long press's hold or a swipe's movement; 0 takes the
	// tool's default.
	Seconds float64
	// Text is what to type (InputText).
	Text string
	// Button is the button to press (InputButton): home, lock,
	// volume_up, volume_down, back.
	Button string
	// Key is the key to press (InputKey): one of openlolo_key's names
	// (enter, backspace, ...).
	Key string
	// Epoch is the geometry epoch the page showed; "" is not checked.
	Epoch string
}

// Call is in as the tool call it is: the tool and its api arguments. A
// touch names no frame: control gives it the owner's own latest, the
// picture the page shows, and checks Epoch, the geometry the page showed.
func (in Input) Call() (api.Tool, any, *api.Error) {
	var secs *float64
	if in.Seconds > 0 {
		secs = &in.Seconds
	}
	touch := api.FrameArgs{GeometryEpoch: api.Epoch(in.Epoch), X: &in.X, Y: &in.Y}
	switch in.Kind {
	case InputTap:
		return api.ToolTap, api.TapArgs{FrameArgs: touch}, nil
	case InputLongPress:
		return api.ToolLongPress, api.LongPressArgs{FrameArgs: touch, Seconds: secs}, nil
	case InputSwipe:
		return api.ToolSwipe, api.SwipeArgs{FrameArgs: touch, X2: &in.X2, Y2: &in.Y2, Seconds: secs}, nil
	case InputText:
		return api.ToolTypeText, api.TypeTextArgs{Text: &in.Text}, nil
	case InputKey:
		return api.ToolKey, api.KeyArgs{Key: api.KeyName(in.Key)}, nil
	case InputButton:
		return api.ToolButton, api.ButtonArgs{Button: api.Button(in.Button)}, nil
	}
	return "", nil, api.Errorf(api.CodeInvalidArguments, "the box page has no input %q", in.Kind)
}

// Driver is the owner's own input on the phone. The owner is a client of
// its own with its own control lease: every input enters control through
// the same dispatcher as a client's tool call ([Input.Call]), under the
// same rules and journal (and shows in Activity as the owner's). An
// adapter in the appliance package implements it over control.Service.
type Driver interface {
	// Input runs in as the owner. A refusal or a failure is an
	// *api.Error carrying its stable code (CONTROL_BUSY when an agent
	// holds control, FRAME_EXPIRED, UNSUPPORTED_BUTTON, ...).
	Input(ctx context.Context, in Input) error
	// TakeOver pauses the agents (the owner's pause, lifted only by the
	// owner) and gives the owner the control lease.
	TakeOver(ctx context.Context) error
	// GiveBack releases the owner's lease and lifts the owner's pause,
	// giving control back to the agents.
	GiveBack(ctx context.Context) error
}

// ownerButtons are the buttons the live view offers, in the order shown,
// each where the phone has it (phone's Info.Buttons).
var ownerButtons = []struct {
	Button api.Button
	Label  string
}{
	{api.ButtonHome, "Home"}, {api.ButtonBack, "Back"}, {api.ButtonLock, "Lock"},
	{api.ButtonVolumeDown, "Volume −"}, {api.ButtonVolumeUp, "Volume +"},
}

// LiveButton is one button of the live view.
type LiveButton struct{ Name, Label string }

// liveButtons are the buttons of ownerButtons that the phone has.
func liveButtons(info phone.Info) []LiveButton {
	var out []LiveButton
	for _, b := range ownerButtons {
		if info.HasButton(b.Button) {
			out = append(out, LiveButton{Name: string(b.Button), Label: b.Label})
		}
	}
	return out
}

// inputAnswer is the JSON answer to the page's script.
type inputAnswer struct {
	OK      bool   `json:"ok"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// ownerInput handles POST /status/{kind}: the owner's tap, long press,
// swipe, typing or button. A script gets JSON; a plain form is sent back
// to Status with what happened.
func (p *Pages) ownerInput(kind InputKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in, bad := readInput(kind, r)
		pp, ok := p.pick(r)
		if !ok {
			p.inputDone(w, r, http.StatusNotFound, api.Errorf(api.CodeInvalidArguments, "%s", noPhone(r)), "")
			return
		}
		if bad == "" && pp.driver == nil {
			p.inputDone(w, r, http.StatusServiceUnavailable, api.Errorf(api.CodeUnsupported, "this box has no control service running, so the page cannot drive the phone"), "")
			return
		}
		if bad != "" {
			p.inputDone(w, r, http.StatusBadRequest, api.Errorf(api.CodeInvalidArguments, "%s", bad), "")
			return
		}
		err := pp.driver.Input(r.Context(), in)
		if err != nil {
			p.log.Info("owner: input refused", "kind", kind, "err", err)
		}
		p.inputDone(w, r, http.StatusConflict, err, inputDoneWords[kind])
	}
}

var inputDoneWords = map[InputKind]string{
	InputTap: "tapped", InputLongPress: "pressed", InputSwipe: "swiped", InputText: "typed", InputButton: "pressed", InputKey: "pressed",
}

// readInput reads an input's form fields; bad says what is wrong.
func readInput(kind InputKind, r *http.Request) (Input, string) {
	in := Input{Kind: kind, Epoch: r.PostFormValue("epoch")}
	num := func(name string, lo, hi float64, need bool) (float64, string) {
		v := r.PostFormValue(name)
		if v == "" {
			if need {
				return 0, name + " is required"
			}
			return 0, ""
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f < lo || f > hi {
			return 0, name + " must be a number from " + strconv.FormatFloat(lo, 'g', -1, 64) + " to " + strconv.FormatFloat(hi, 'g', -1, 64)
		}
		return f, ""
	}
	var bad string
	switch kind {
	case InputTap, InputLongPress, InputSwipe:
		for _, f := range []struct {
			name string
			out  *float64
			use  bool
		}{{"x", &in.X, true}, {"y", &in.Y, true}, {"x2", &in.X2, kind == InputSwipe}, {"y2", &in.Y2, kind == InputSwipe}} {
			if !f.use {
				continue
			}
			if *f.out, bad = num(f.name, 0, 1, true); bad != "" {
				return in, bad + " (a fraction of the screen)"
			}
		}
		if kind != InputTap {
			if in.Seconds, bad = num("seconds", api.MinGesture, api.MaxGesture, false); bad != "" {
				return in, bad
			}
		}
	case InputText:
		in.Text = r.PostFormValue("text")
		if in.Text == "" {
			return in, "type some text first"
		}
	case InputButton:
		in.Button = r.PostFormValue("button")
		if in.Button == "" {
			return in, "button is required"
		}
	case InputKey:
		in.Key = r.PostFormValue("key")
		if in.Key == "" {
			return in, "key is required"
		}
	}
	return in, ""
}

// inputDone answers an owner input or a control change: JSON for the
// script, else Status with a notice (done) or a page saying why not.
func (p *Pages) inputDone(w http.ResponseWriter, r *http.Request, status int, err error, done string) {
	var ae *api.Error
	if err != nil && !errors.As(err, &ae) {
		ae = api.Errorf(api.CodeInternal, "%v", err)
	}
	if wantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		a := inputAnswer{OK: ae == nil, Message: doneWords(done)}
		if ae != nil {
			w.WriteHeader(status)
			a.Code, a.Message = string(ae.Code), inputRefusal(ae)
		}
		json.NewEncoder(w).Encode(a)
		return
	}
	if ae != nil {
		p.message(w, r, status, "Not done", inputRefusal(ae), "Status", "/status")
		return
	}
	http.Redirect(w, r, statusPath(r.FormValue("phone"), "done="+done), http.StatusSeeOther)
}

// inputRefusal says a refusal to the owner, with what to do about it.
func inputRefusal(e *api.Error) string {
	msg := "The box did not send that to the phone: " + e.Message + "."
	switch e.Code {
	case api.CodeControlBusy:
		msg += " An agent holds control: press Take over to pause the agents and drive the phone yourself."
	case api.CodeFrameExpired:
		msg += " Reload the page and try again."
	}
	return msg
}

func doneWords(done string) string {
	switch done {
	case "tapped":
		return "Tapped."
	case "swiped":
		return "Swiped."
	case "typed":
		return "Typed."
	case "pressed":
		return "Pressed."
	case "taken":
		return "You hold control. The agents are paused until you give control back."
	case "given":
		return "Control is back with the agents."
	}
	return ""
}

// takeOver handles POST /status/take-over.
func (p *Pages) takeOver(w http.ResponseWriter, r *http.Request) {
	pp, ok := p.pick(r)
	if !ok {
		p.inputDone(w, r, http.StatusNotFound, api.Errorf(api.CodeInvalidArguments, "%s", noPhone(r)), "")
		return
	}
	if pp.driver == nil {
		p.inputDone(w, r, http.StatusServiceUnavailable, api.Errorf(api.CodeUnsupported, "this box has no control service running"), "")
		return
	}
	err := pp.driver.TakeOver(r.Context())
	if err == nil {
		p.log.Info("owner: took over control")
	}
	p.inputDone(w, r, http.StatusConflict, err, "taken")
}

// giveBack handles POST /status/give-back.
func (p *Pages) giveBack(w http.ResponseWriter, r *http.Request) {
	pp, ok := p.pick(r)
	if !ok {
		p.inputDone(w, r, http.StatusNotFound, api.Errorf(api.CodeInvalidArguments, "%s", noPhone(r)), "")
		return
	}
	if pp.driver == nil {
		p.inputDone(w, r, http.StatusServiceUnavailable, api.Errorf(api.CodeUnsupported, "this box has no control service running"), "")
		return
	}
	err := pp.driver.GiveBack(r.Context())
	if err == nil {
		p.log.Info("owner: gave control back")
	}
	p.inputDone(w, r, http.StatusConflict, err, "given")
}
