package control

import (
	"bytes"
	"encoding/json"
	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control/controltest"
	"math"
	"testing"
)

// FuzzToolArguments feeds arbitrary bytes to every tool's argument
// decoding and checks: no panic; a refusal always has a code and a
// message; what is accepted lies inside the documented ranges.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `[]`, `{"x":0.5,"y":0.5,"frame_id":"a-1","geometry_epoch":"1"}`,
		`{"x":1e309}`, `{"x":-0,"y":1,"frame_id":"f","geometry_epoch":7}`, `{"text":"Hello, box!"}`,
		`{"text":"\u00e9"}`, `{"key":"F12","modifiers":["cmd","shift"]}`, `{"button":"home"}`,
		`{"url":"https://example.com"}`, `{"max_size":4096,"format":"png"}`, `{"wait_ms":60001}`,
		`{"operation_id":"3f0c2a4e-8a51-4c39-9d7e-2f1b6c1e7a90"}`, `{"seconds":0.02}`, `{"a":1}{"b":2}`,
		`{"kinds":["frame","nope"]}`, `{"geometry_epoch":{"x":1}}`, `{"settle":5.0001}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkErr := func(name string, e interface{ Error() string }) {
			if e == nil {
				return
			}
			if e.Error() == "" {
				t.Fatalf("%s: empty error", name)
			}
		}
		var tap api.SwipeArgs
		if e := decodeArgs(raw, &tap); e == nil {
			o, e := checkOptions(api.ToolSwipe, &tap.InputOptions)
			if e == nil && (o.settle < 0 || o.settle > 5 || math.IsNaN(o.settle)) {
				t.Fatalf("settle %g accepted", o.settle)
			}
			ref, p, e2 := checkFrame(api.ToolSwipe, tap.FrameArgs)
			if e2 == nil && (!p.Valid() || ref.ID == "" || ref.Epoch == "") {
				t.Fatalf("frame args accepted out of range: %+v %+v", ref, p)
			}
			if e != nil {
				checkErr("common", e)
			}
		} else if e.Code == "" || e.Message == "" {
			t.Fatalf("decode refusal without code or message: %+v", e)
		}
		var ta api.TypeTextArgs
		if decodeArgs(raw, &ta) == nil {
			if s, e := checkText(ta.Text); e == nil {
				if s == "" || len(s) > api.MaxText {
					t.Fatalf("text of %d bytes accepted", len(s))
				}
				for _, r := range s {
					if r < 0x20 || r > 0x7e {
						t.Fatalf("non-printable %q accepted", r)
					}
				}
			}
		}
		var ka api.KeyArgs
		if decodeArgs(raw, &ka) == nil {
			if k, e := checkKey(ka); e == nil && k.Name == "" {
				t.Fatal("empty key accepted")
			}
		}
		var sa api.ScreenshotArgs
		if decodeArgs(raw, &sa) == nil {
			if format, size, e := checkScreenshot(sa); e == nil && (size < 128 || size > 4096 || (format != "jpeg" && format != "png")) {
				t.Fatalf("screenshot %s %d accepted", format, size)
			}
		}
		var wa api.WatchArgs
		if decodeArgs(raw, &wa) == nil {
			if req, e := checkWatch(wa); e == nil && (req.Wait < 0 || req.Wait.Milliseconds() > 60000) {
				t.Fatalf("wait %v accepted", req.Wait)
			}
		}
		var ua api.OpenURLArgs
		if decodeArgs(raw, &ua) == nil {
			if u, e := checkURL(controltest.New(nil), ua.URL); e == nil && (len(u) < 3 || len(u) > api.MaxURL) {
				t.Fatalf("url %q accepted", u)
			}
		}
		var ca api.ControlArgs
		if decodeArgs(raw, &ca) == nil {
			if id, e := opID(ca.OperationID); e == nil && id != "" && len(id) != 36 {
				t.Fatalf("operation id %q accepted", id)
			}
		}
		// Whatever decodes must survive the fingerprint's marshal.
		if _, err := json.Marshal(tap); err != nil {
			t.Fatal(err)
		}
	})
}

// decodeArgs decodes raw strictly, as the mcp package does before it
// calls a verb.
func decodeArgs(raw []byte, v any) *Error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid("arguments could not be read: %v", err)
	}
	if dec.More() {
		return invalid("arguments must be one JSON object")
	}
	return nil
}
