package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/ocr"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
)

// UpdateGolden is -update: rewrite the golden files in api/testdata (the
// external tests read it too).
var UpdateGolden = flag.Bool("update", false, "rewrite the golden files in api/testdata")

// answersDir holds one golden file per tool: the structuredContent of a
// successful and of a refused call.
const answersDir = "../../api/testdata/answers"

// Fixed operation ids of the golden calls.
const (
	goldenOpTap   = "10000000-0000-4000-8000-000000000001"
	goldenOpOther = "10000000-0000-4000-8000-0000000000ff"
)

// TestAnswersGolden calls every tool once to succeed and once to be
// refused, on the simulated phone, in a synctest bubble (its clock is the
// bubble's, which starts at 2000-01-01 UTC) with a seeded crypto/rand, so
// every frame id, operation id and time in the answers is the same on
// each run; the answers are compared with api/testdata/answers.
func TestAnswersGolden(t *testing.T) {
	cryptotest.SetGlobalRandom(t, 12)
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, err := store.Open(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		ph, err := sim.New(sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ph.Close()
		// The real OCR engine (scripts/deps.sh installs it): tesseract
		// reads the same pixels the same way on every run.
		ctl, err := control.New(ctx, control.Config{Store: st, Phone: ph, Now: time.Now, OCR: ocr.Tesseract{}})
		if err != nil {
			t.Fatal(err)
		}
		h, err := New(Config{Control: ctl, Info: func() api.BoxInfo { return api.BoxInfo{Name: "openlolo-golden", Version: "golden"} }})
		if err != nil {
			t.Fatal(err)
		}
		caller := &oauth.Caller{ClientID: "golden-client", ClientName: "golden agent", GrantID: "golden-grant", Entry: "lan",
			Scopes: []string{string(api.ScopePhoneRead), string(api.ScopePhoneControl)}}
		c := call{caller: caller, client: control.Client{ID: caller.ClientID, Name: caller.ClientName, GrantID: caller.GrantID}}
		do := func(tool api.Tool, args string) json.RawMessage {
			t.Helper()
			synctest.Wait() // the event log has taken every event so far
			c.raw = json.RawMessage(args)
			r := h.tools[string(tool)].run(h, ctx, c)
			b, err := json.Marshal(r.answer)
			if err != nil {
				t.Fatalf("%s: %v", tool, err)
			}
			return b
		}
		answers := map[api.Tool][2]json.RawMessage{}
		pair := func(tool api.Tool, ok, refused string) {
			t.Helper()
			a := [2]json.RawMessage{do(tool, ok), do(tool, refused)}
			if !bytes.Contains(a[0], []byte(`"status":"ok"`)) || !bytes.Contains(a[1], []byte(`"status":"failed"`)) {
				t.Fatalf("%s: want ok then failed:\n%s\n%s", tool, a[0], a[1])
			}
			answers[tool] = a
		}
		frame := func() string {
			var f api.Frame
			json.Unmarshal(do(api.ToolScreenshot, `{"max_size":256}`), &f)
			return `"frame_id":"` + f.FrameID + `","geometry_epoch":"` + f.GeometryEpoch + `"`
		}
		pair(api.ToolStatus, `{}`, `{"verbose":true}`)
		pair(api.ToolCapabilities, `{}`, `{"x":1}`)
		pair(api.ToolScreenshot, `{"max_size":256}`, `{"max_size":64}`)
		pair(api.ToolApps, `{"query":"note"}`, `{"query":"`+strings.Repeat("n", api.MaxQuery+1)+`"}`)
		pair(api.ToolDeviceInfo, `{}`, `{"model":"x"}`)
		pair(api.ToolFindText, `{"query":"notes"}`, `{"query":"`+strings.Repeat("n", api.MaxQuery+1)+`"}`)
		pair(api.ToolElements, `{"query":"notes"}`, `{"limit":0}`)
		f := frame()
		pair(api.ToolTap, `{`+f+`,"x":0.5,"y":0.05,"settle":0,"operation_id":"`+goldenOpTap+`"}`, `{"frame_id":"00-1","geometry_epoch":"1","x":0.5,"y":0.05}`)
		pair(api.ToolOperationStatus, `{"operation_id":"`+goldenOpTap+`"}`, `{"operation_id":"`+goldenOpOther+`"}`)
		pair(api.ToolWatch, `{"cursor":"c0","wait_ms":0}`, `{"cursor":"c99999","wait_ms":0}`)
		f = frame()
		pair(api.ToolLongPress, `{`+f+`,"x":0.5,"y":0.05,"seconds":0.5,"observe":false}`, `{`+f+`,"x":0.5,"y":0.05,"seconds":5}`)
		f = frame()
		pair(api.ToolSwipe, `{`+f+`,"x":0.5,"y":0.6,"x2":0.5,"y2":0.4,"seconds":0.3,"observe":false}`, `{`+f+`,"x":0.5,"y":0.6}`)
		pair(api.ToolTypeText, `{"text":"Hello, box!","observe":false}`, `{"text":"h\u00e9llo"}`)
		pair(api.ToolKey, `{"key":"a","modifiers":["shift"],"observe":false}`, `{"key":"hyper"}`)
		pair(api.ToolButton, `{"button":"home","observe":false}`, `{"button":"back"}`)
		pair(api.ToolShortcut, `{"shortcut":"spotlight","observe":false}`, `{"shortcut":"back"}`)
		pair(api.ToolLaunchApp, `{"bundle_id":"com.apple.mobilenotes","observe":false}`, `{"bundle_id":"com.example.nothing"}`)
		pair(api.ToolOpenURL, `{"url":"https://example.com/box","observe":false}`, `{"url":"ftp://example.com/x"}`)
		pair(api.ToolAppProfiles, `{"query":"maps"}`, `{"query":"`+strings.Repeat("m", api.MaxQuery+1)+`"}`)
		pair(api.ToolAppProfile, `{"bundle_id":"com.apple.Maps"}`, `{"bundle_id":"com.example.nothing"}`)
		pair(api.ToolOpenLink, `{"bundle_id":"com.apple.Maps","link":"search","params":{"query":"coffee near me","zoom":15},"observe":false}`,
			`{"bundle_id":"com.apple.Maps","link":"search","params":{"zoom":15}}`)
		pair(api.ToolCancel, `{"target":"`+goldenOpTap+`"}`, `{"target":"`+goldenOpOther+`"}`)
		pair(api.ToolControl, `{"command":"release"}`, `{"command":"renew"}`)
		pair(api.ToolPause, `{}`, `{"operation_id":"not-a-uuid"}`)
		// After the others, so their answers stay as they were: Settings
		// scrolls, so the full page has several pages.
		do(api.ToolControl, `{"command":"resume"}`)
		// A new box asks the owner before launching Settings
		// (asks_golden_test.go has those answers); here it launches.
		if err := ctl.SetBoxMarks(ctx, nil); err != nil {
			t.Fatal(err)
		}
		do(api.ToolLaunchApp, `{"bundle_id":"com.apple.Preferences","observe":false}`)
		pair(api.ToolFullPage, `{"max_pages":3,"output":"both","max_size":256,"settle":0}`, `{"max_pages":21}`)
		pair(api.ToolSendText, `{"text":"h\u00e9llo \u2713 \u65e5\u672c","observe":false}`, `{"text":""}`)
		pair(api.ToolClipboard, `{}`, `{"x":1}`)
		pair(api.ToolPhones, `{}`, `{"phone":"phone-1"}`)
		if len(answers) != len(h.tools) {
			t.Fatalf("golden answers for %d tools, the catalog has %d", len(answers), len(h.tools))
		}
		for tool, a := range answers {
			b, _ := json.Marshal(map[string]json.RawMessage{"ok": a[0], "refused": a[1]})
			goldenFile(t, filepath.Join(answersDir, string(tool)+".json"), b)
		}
	})
}

// goldenFile compares got (JSON, indented here) with the file at path, or
// rewrites it under -update.
func goldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	buf.WriteByte('\n')
	goldenBytes(t, path, buf.Bytes())
}

// goldenBytes compares got with the file at path, or rewrites it under
// -update.
func goldenBytes(t *testing.T, path string, got []byte) {
	t.Helper()
	if *UpdateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (go test -update rewrites it):\n got %s", path, got)
	}
}
