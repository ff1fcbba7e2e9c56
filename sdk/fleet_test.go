package sdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/sdk"
)

// twoBoxes starts two real boxes, openlolo-fa01 with two simulated phones
// and openlolo-fb02 with one, pairs one token store with both and opens
// the fleet. b is the second box (the tests stop it); ctx ends with the
// test.
func twoBoxes(t *testing.T) (ctx context.Context, b *exampleBox, f *sdk.Fleet) {
	t.Helper()
	a, b := startBoxOf("openlolo-fa01", 2), startBoxOf("openlolo-fb02", 1)
	t.Cleanup(func() { a.stop(); b.stop() })
	store := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	a.Pair(store)
	b.Pair(store)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	f, err := sdk.OpenFleet(ctx, &sdk.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, b, f
}

func TestFleetRoutesByBoxAndPhone(t *testing.T) {
	ctx, b, f := twoBoxes(t)
	l, err := f.Phones(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range l.Phones {
		ids = append(ids, p.ID)
	}
	want := []string{"openlolo-fa01/sim-1", "openlolo-fa01/sim-2", "openlolo-fb02/phone-1"}
	if !slices.Equal(ids, want) {
		t.Fatalf("fleet phones = %v, want %v", ids, want)
	}

	_, err = f.Phone(ctx, "")
	var ref *sdk.Refused
	if !errors.As(err, &ref) || ref.Code != string(api.CodePhoneRequired) || !strings.Contains(strings.Join(ref.NextSteps, " "), strings.Join(want, ", ")) {
		t.Fatalf("Phone(\"\") = %v, want PHONE_REQUIRED naming %v", err, want)
	}
	if _, err := f.Phone(ctx, "sim-1"); !errors.As(err, &ref) || ref.Code != string(api.CodePhoneRequired) {
		t.Fatalf("Phone(sim-1) = %v, want PHONE_REQUIRED (ids are box/phone)", err)
	}

	p, err := f.Phone(ctx, "openlolo-fa01/sim-2")
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.CallTool(ctx, string(api.ToolStatus), nil)
	if err != nil {
		t.Fatalf("status on %s: %v", p.ID, err)
	}
	if res.Status() != "ok" {
		t.Fatalf("status on %s: %s", p.ID, res.Text)
	}

	// The box of openlolo-fb02/phone-1 stops: its phone is
	// PHONE_UNAVAILABLE, nothing dispatched; the other box answers.
	must(b.stop())
	gone, err := f.Phone(ctx, "openlolo-fb02/phone-1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = gone.Mutate(ctx, string(api.ToolKey), map[string]any{"key": "home"})
	if !errors.As(err, &ref) || ref.Code != string(api.CodePhoneUnavailable) || ref.Dispatched || len(ref.NextSteps) == 0 {
		t.Fatalf("key on a stopped box = %#v, want PHONE_UNAVAILABLE, not dispatched, with next steps", err)
	}
	if _, err := p.CallTool(ctx, string(api.ToolStatus), nil); err != nil {
		t.Fatalf("status on %s after the other box stopped: %v", p.ID, err)
	}
	l, err = f.Phones(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Phones) != 2 || len(l.Boxes) != 2 || !l.Boxes[0].Reachable || l.Boxes[1].Reachable || l.Boxes[1].Error.Code != api.CodePhoneUnavailable {
		t.Fatalf("listing after openlolo-fb02 stopped: %+v", l)
	}
}

func TestFleetOpenNeedsAGrant(t *testing.T) {
	st := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	_, err := sdk.OpenFleet(context.Background(), &sdk.Options{Store: st})
	if err == nil || !strings.Contains(err.Error(), "openlolo pair") {
		t.Fatalf("OpenFleet on an empty store = %v, want an error saying how to pair", err)
	}
}

// stdio is a line-at-a-time JSON-RPC client of a bridge.
type stdio struct {
	t  testing.TB
	w  io.Writer
	sc *bufio.Scanner
	id int
}

// startFleetBridge runs FleetBridge over pipes until the test ends.
func startFleetBridge(t testing.TB, ctx context.Context, f *sdk.Fleet) *stdio {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- sdk.FleetBridge(ctx, f, inR, outW); outW.Close() }()
	t.Cleanup(func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("FleetBridge: %v", err)
		}
	})
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 8<<20)
	return &stdio{t: t, w: inW, sc: sc}
}

// rpc sends one request and returns its result (or fails the test on a
// JSON-RPC error).
func (s *stdio) rpc(method string, params any) map[string]any {
	s.t.Helper()
	s.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	if _, err := s.w.Write(append(b, '\n')); err != nil {
		s.t.Fatal(err)
	}
	if !s.sc.Scan() {
		s.t.Fatalf("%s: the bridge closed stdout: %v", method, s.sc.Err())
	}
	var ans struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(s.sc.Bytes(), &ans); err != nil {
		s.t.Fatalf("%s: %v", method, err)
	}
	if ans.Error != nil {
		s.t.Fatalf("%s: JSON-RPC error %v", method, ans.Error)
	}
	return ans.Result
}

// call is a tools/call's structuredContent and isError.
func (s *stdio) call(tool string, args map[string]any) (map[string]any, bool) {
	s.t.Helper()
	r := s.rpc("tools/call", map[string]any{"name": tool, "arguments": args})
	sc, _ := r["structuredContent"].(map[string]any)
	isErr, _ := r["isError"].(bool)
	return sc, isErr
}

func errCode(sc map[string]any) string {
	e, _ := sc["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func TestFleetBridge(t *testing.T) {
	ctx, b, f := twoBoxes(t)
	s := startFleetBridge(t, ctx, f)
	init := s.rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "1"}})
	if info, _ := init["serverInfo"].(map[string]any); info["name"] != sdk.FleetServerName || init["protocolVersion"] != "2025-06-18" {
		t.Fatalf("initialize = %v", init)
	}
	tools, _ := s.rpc("tools/list", map[string]any{})["tools"].([]any)
	boxArg := map[string]bool{}
	for _, tl := range tools {
		m := tl.(map[string]any)
		props := m["inputSchema"].(map[string]any)["properties"].(map[string]any)
		_, ok := props["box"]
		boxArg[m["name"].(string)] = ok
	}
	if !boxArg["openlolo_watch"] || !boxArg["openlolo_operation_status"] || boxArg["openlolo_tap"] || boxArg["openlolo_phones"] || len(tools) < 20 {
		t.Fatalf("tools/list through the fleet: %d tools, box argument on %v", len(tools), boxArg)
	}

	sc, isErr := s.call("openlolo_phones", nil)
	if isErr || len(sc["phones"].([]any)) != 3 {
		t.Fatalf("openlolo_phones = %v", sc)
	}
	if sc, isErr := s.call("openlolo_status", nil); !isErr || errCode(sc) != string(api.CodePhoneRequired) {
		t.Fatalf("status naming no phone = %v, want PHONE_REQUIRED", sc)
	}
	if sc, isErr := s.call("openlolo_screenshot", map[string]any{"phone": "openlolo-fb02/phone-1", "max_size": 256}); isErr || sc["frame_id"] == nil {
		t.Fatalf("screenshot of openlolo-fb02/phone-1 = %v", sc)
	}
	// A client of MCP 2026-07-28 sends its protocol in every request's
	// _meta: the fleet keeps it to itself and passes the rest on.
	r := s.rpc("tools/call", map[string]any{"name": "openlolo_status", "arguments": map[string]any{"phone": "openlolo-fb02/phone-1"},
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "openlolo.mcp": map[string]any{"structured": true}}})
	if text, _ := json.Marshal(r["content"]); r["isError"] == true || !strings.Contains(string(text), `"text":"{`) {
		t.Fatalf("status with the client's protocol in _meta = %v, want the box's answer as JSON text", r)
	}
	sc, isErr = s.call("openlolo_status", map[string]any{"phone": "openlolo-fb02/sim-9"})
	if steps, _ := json.Marshal(sc["error"]); !isErr || errCode(sc) != string(api.CodePhoneRequired) || !strings.Contains(string(steps), "openlolo-fa01/sim-2") {
		t.Fatalf("status on a phone its box does not have = %v, want PHONE_REQUIRED naming the fleet's phones", sc)
	}
	if sc, isErr := s.call("openlolo_watch", map[string]any{"wait_ms": 0}); !isErr || errCode(sc) != string(api.CodeInvalidArguments) {
		t.Fatalf("watch naming no box = %v, want INVALID_ARGUMENTS", sc)
	}
	if sc, isErr := s.call("openlolo_watch", map[string]any{"wait_ms": 0, "box": "openlolo-fa01"}); isErr || sc["cursor"] == nil {
		t.Fatalf("watch on openlolo-fa01 = %v", sc)
	}
	if sc, isErr := s.call("openlolo_status", map[string]any{"phone": 7}); !isErr || errCode(sc) != string(api.CodeInvalidArguments) {
		t.Fatalf("phone 7 = %v, want INVALID_ARGUMENTS", sc)
	}

	must(b.stop())
	sc, isErr = s.call("openlolo_key", map[string]any{"phone": "openlolo-fb02/phone-1", "key": "home"})
	if !isErr || errCode(sc) != string(api.CodePhoneUnavailable) || sc["dispatched"] != false {
		t.Fatalf("key on the stopped box = %v, want PHONE_UNAVAILABLE, dispatched false", sc)
	}
	if sc, isErr := s.call("openlolo_status", map[string]any{"phone": "openlolo-fa01/sim-1"}); isErr {
		t.Fatalf("status on the running box after the other stopped = %v", sc)
	}
	sc, isErr = s.call("openlolo_phones", nil)
	if isErr || len(sc["phones"].([]any)) != 2 {
		t.Fatalf("openlolo_phones after openlolo-fb02 stopped = %v", sc)
	}
	// The emergency stop naming no phone pauses the box that answers and
	// names the one that does not.
	sc, isErr = s.call("openlolo_pause", nil)
	boxes, _ := json.Marshal(sc["boxes"])
	if !isErr || errCode(sc) != string(api.CodePhoneUnavailable) || !strings.Contains(string(boxes), `{"id":"openlolo-fa01","paused":true}`) {
		t.Fatalf("pause naming no phone with openlolo-fb02 stopped = %v, want PHONE_UNAVAILABLE with openlolo-fa01 paused", sc)
	}
	if sc, _ := s.call("openlolo_status", map[string]any{"phone": "openlolo-fa01/sim-2"}); sc["paused"] != true {
		t.Fatalf("status of openlolo-fa01/sim-2 after the fleet's pause = %v, want paused", sc)
	}
}

// With one phone in the whole fleet, calls may leave phone out.
func TestFleetOnePhoneMayBeLeftOut(t *testing.T) {
	b := startPairedBox()
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, err := sdk.OpenFleet(ctx, &sdk.Options{Store: b.Store})
	if err != nil {
		t.Fatal(err)
	}
	s := startFleetBridge(t, ctx, f)
	if sc, isErr := s.call("openlolo_status", nil); isErr {
		t.Fatalf("status with phone left out on a one-phone fleet = %v", sc)
	}
	if sc, isErr := s.call("openlolo_watch", map[string]any{"wait_ms": 0}); isErr {
		t.Fatalf("watch with box left out on a one-box fleet = %v", sc)
	}
}
