package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/api"
)

// memBox is a box in memory, reached through its http.RoundTripper:
// answer gives the result of each JSON-RPC request; a box whose answer is
// nil refuses the connection, and one that is hung never answers (until
// the request is cancelled). It records the requests it answered.
type memBox struct {
	answer func(method string, params json.RawMessage) any
	hung   bool

	mu    sync.Mutex
	calls []memCall
}

// memCall is one request a memBox answered.
type memCall struct {
	Method string
	Params json.RawMessage
}

func (m *memBox) RoundTrip(r *http.Request) (*http.Response, error) {
	if m.hung {
		<-r.Context().Done()
		return nil, r.Context().Err()
	}
	if m.answer == nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	var req struct {
		ID     int64           `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.calls = append(m.calls, memCall{req.Method, req.Params})
	m.mu.Unlock()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": m.answer(req.Method, req.Params)})
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
}

// toolCalls are the arguments of the tools/calls of tool the box answered.
func (m *memBox) toolCalls(tool string) []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []map[string]any
	for _, c := range m.calls {
		var p callParams
		if c.Method == "tools/call" && json.Unmarshal(c.Params, &p) == nil && p.Name == tool {
			out = append(out, p.Arguments)
		}
	}
	return out
}

// on is a FleetBox with id reached through m.
func (m *memBox) on(id string) *FleetBox {
	return &FleetBox{ID: id, Client: fakeClient("https://"+id+".local", &http.Client{Transport: m})}
}

// phoneBox is a memBox with phones: openlolo_phones lists them, a pause
// pauses, every other tool answers ok, and tools/list lists tool.
func phoneBox(phones ...string) *memBox {
	return &memBox{answer: func(method string, params json.RawMessage) any {
		switch method {
		case "initialize":
			return map[string]any{"protocolVersion": "2025-06-18", "serverInfo": map[string]any{"name": "openlolo"}}
		case "tools/list":
			return map[string]any{"tools": []map[string]any{{"name": "openlolo_tap", "inputSchema": map[string]any{"properties": map[string]any{"phone": map[string]any{}}}}}}
		}
		var p callParams
		json.Unmarshal(params, &p)
		sc := map[string]any{"status": "ok"}
		switch p.Name {
		case string(api.ToolPhones):
			entries := []map[string]any{}
			for _, id := range phones {
				entries = append(entries, map[string]any{"id": id})
			}
			sc["phones"] = entries
		case string(api.ToolPause):
			sc["paused"] = true
		}
		return map[string]any{"content": []map[string]any{{"type": "text", "text": "ok"}}, "structuredContent": sc}
	}}
}

// The emergency stop naming no phone pauses every box, as it pauses every
// phone of one box; a box that does not answer is named without failing
// the pause of the others.
func TestFleetBridgePauseAll(t *testing.T) {
	aa, bb, cc := phoneBox("sim-1"), &memBox{}, phoneBox("sim-1", "sim-2")
	b := bridgeOf(aa.on("aa"), bb.on("bb"), cc.on("cc"))
	b.kinds[string(api.ToolPause)] = toolKind{phone: true, mutating: true}

	sc := callAnswer(t, b, string(api.ToolPause), map[string]any{"operation_id": "op-1"})
	boxes, _ := json.Marshal(sc["boxes"])
	msg, _ := json.Marshal(sc["error"])
	if answerCode(sc) != string(api.CodePhoneUnavailable) || sc["paused"] != false || !strings.Contains(string(msg), "not paused on box bb") || !strings.Contains(string(msg), "paused on aa, cc") {
		t.Errorf("pause with box bb off = %v, want PHONE_UNAVAILABLE naming bb and the boxes paused", sc)
	}
	var per []BoxPause
	json.Unmarshal(boxes, &per)
	if len(per) != 3 || !per[0].Paused || per[1].Paused || per[1].Error == nil || per[1].Error.Code != api.CodePhoneUnavailable || !per[2].Paused {
		t.Errorf("pause boxes = %s, want aa and cc paused, bb with its error", boxes)
	}
	for name, m := range map[string]*memBox{"aa": aa, "cc": cc} {
		calls := m.toolCalls(string(api.ToolPause))
		if len(calls) != 1 || calls[0]["phone"] != nil || calls[0]["operation_id"] != "op-1" {
			t.Errorf("box %s got pauses %v, want one naming no phone with the caller's operation_id", name, calls)
		}
	}

	b = bridgeOf(aa.on("aa"), cc.on("cc"))
	b.kinds[string(api.ToolPause)] = toolKind{phone: true, mutating: true}
	if sc := callAnswer(t, b, string(api.ToolPause), map[string]any{"phone": ""}); sc["status"] != "ok" || sc["paused"] != true {
		t.Errorf("pause with every box on = %v, want ok, paused", sc)
	}
	// Naming a phone pauses that phone's box only, as before.
	callAnswer(t, b, string(api.ToolPause), map[string]any{"phone": "cc/sim-2"})
	if calls := cc.toolCalls(string(api.ToolPause)); len(calls) != 3 || calls[2]["phone"] != "sim-2" || len(aa.toolCalls(string(api.ToolPause))) != 2 {
		t.Errorf("pause of cc/sim-2: cc got %v, aa %d pauses", calls, len(aa.toolCalls(string(api.ToolPause))))
	}
}

func TestFleetPause(t *testing.T) {
	aa, bb := phoneBox("sim-1"), &memBox{}
	f := &Fleet{boxes: []*FleetBox{aa.on("aa"), bb.on("bb")}, now: time.Now}
	got := f.Pause(context.Background())
	if len(got) != 2 || !got[0].Paused || got[0].Error != nil || got[1].Paused || got[1].Error == nil || got[1].Error.Code != api.CodePhoneUnavailable {
		t.Fatalf("Pause with bb off = %+v, want aa paused and bb PHONE_UNAVAILABLE", got)
	}
}

// A call naming no phone goes to the fleet's only phone only when every
// box answered the listing: a box that did not may hold another.
func TestFleetNoPhoneNeedsEveryBox(t *testing.T) {
	aa, bb := phoneBox("sim-1"), &memBox{}
	b := bridgeOf(aa.on("aa"), bb.on("bb"))
	b.kinds["openlolo_type_text"] = toolKind{phone: true, mutating: true}
	sc := callAnswer(t, b, "openlolo_type_text", map[string]any{"text": "hi"})
	msg, _ := json.Marshal(sc["error"])
	if answerCode(sc) != string(api.CodePhoneRequired) || !strings.Contains(string(msg), "box bb did not answer") || !strings.Contains(string(msg), "aa/sim-1") || sc["dispatched"] != false {
		t.Errorf("type_text naming no phone with box bb off = %v, want PHONE_REQUIRED naming bb and aa/sim-1", sc)
	}
	if calls := aa.toolCalls("openlolo_type_text"); len(calls) != 0 {
		t.Errorf("box aa typed %v though the call named no phone and box bb did not answer", calls)
	}
	var ref *Refused
	if _, err := b.f.Phone(context.Background(), ""); !errors.As(err, &ref) || ref.Code != string(api.CodePhoneRequired) {
		t.Errorf("Fleet.Phone(\"\") with box bb off = %v, want PHONE_REQUIRED", err)
	}

	// Every box answers and one phone is listed: it is the one meant.
	b = bridgeOf(aa.on("aa"), phoneBox().on("bb"))
	b.kinds["openlolo_type_text"] = toolKind{phone: true, mutating: true}
	if sc := callAnswer(t, b, "openlolo_type_text", map[string]any{"text": "hi"}); sc["status"] != "ok" {
		t.Fatalf("type_text naming no phone on a one-phone fleet = %v", sc)
	}
	if calls := aa.toolCalls("openlolo_type_text"); len(calls) != 1 || calls[0]["phone"] != "sim-1" {
		t.Errorf("box aa got %v, want one type_text on sim-1", calls)
	}
}

// openlolo_watch's phones are fleet ids: the bridge sends the box its own
// ids, goes to the box they name, and refuses ids of another box.
func TestFleetBridgeWatchPhones(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   map[string]any
		box    string   // the box the call goes to; "" refused
		phones []string // the phones it gets
		says   string   // the refusal's message says
	}{
		{"box from phones", map[string]any{"phones": []any{"aa/sim-1", "aa/sim-2"}}, "aa", []string{"sim-1", "sim-2"}, ""},
		{"box and its phones", map[string]any{"box": "bb", "phones": []any{"bb/sim-1"}}, "bb", []string{"sim-1"}, ""},
		{"empty phones", map[string]any{"box": "bb", "phones": []any{}}, "bb", []string{}, ""},
		{"another box's phone", map[string]any{"box": "aa", "phones": []any{"bb/sim-1"}}, "", nil, "a phone of box bb, and this call goes to box aa"},
		{"mixed boxes", map[string]any{"phones": []any{"aa/sim-1", "bb/sim-1"}}, "", nil, "a phone of box bb, and this call goes to box aa"},
		{"a box's own id", map[string]any{"box": "aa", "phones": []any{"sim-1"}}, "", nil, `"sim-1", which is not a phone id of the fleet`},
		{"unknown box", map[string]any{"phones": []any{"cc/sim-1"}}, "", nil, "not a phone id of the fleet"},
		{"not a string", map[string]any{"phones": []any{3}}, "", nil, `"3", which is not`},
		{"not a list", map[string]any{"phones": "aa/sim-1"}, "", nil, "must be a list"},
	} {
		aa, bb := phoneBox(), phoneBox()
		b := bridgeOf(aa.on("aa"), bb.on("bb"))
		sc := callAnswer(t, b, "openlolo_watch", tc.args)
		got := map[string][]map[string]any{"aa": aa.toolCalls("openlolo_watch"), "bb": bb.toolCalls("openlolo_watch")}
		if tc.box == "" {
			e, _ := sc["error"].(map[string]any)
			if msg, _ := e["message"].(string); answerCode(sc) != string(api.CodeInvalidArguments) || !strings.Contains(msg, tc.says) || len(got["aa"])+len(got["bb"]) != 0 {
				t.Errorf("%s: %v (calls %v), want INVALID_ARGUMENTS saying %q", tc.name, sc, got, tc.says)
			}
			continue
		}
		calls := got[tc.box]
		var phones []string
		if len(calls) == 1 {
			for _, p := range calls[0]["phones"].([]any) {
				phones = append(phones, p.(string))
			}
		}
		if sc["status"] != "ok" || len(calls) != 1 || calls[0]["box"] != nil || !slices.Equal(phones, tc.phones) {
			t.Errorf("%s: %v; box %s got %v, want one watch with phones %v", tc.name, sc, tc.box, calls, tc.phones)
		}
	}
}

// initialize and tools/list ask every box at once: boxes that never
// answer ahead of one that does hold nothing up.
func TestFleetBridgeAsksBoxesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		good := phoneBox("sim-1")
		b := &fleetBridge{f: &Fleet{boxes: []*FleetBox{(&memBox{hung: true}).on("a1"), (&memBox{hung: true}).on("a2"), good.on("zz")}, now: time.Now}}
		ctx := context.Background()
		start := time.Now()
		raw, err := b.handle(ctx, "initialize", json.RawMessage(`{"protocolVersion":"2025-06-18"}`))
		if err != nil || !strings.Contains(string(raw), FleetServerName) || time.Since(start) != 0 {
			t.Fatalf("initialize = %s, %v after %v, want the answering box's at once", raw, err, time.Since(start))
		}
		raw, err = b.handle(ctx, "tools/list", nil)
		if err != nil || !strings.Contains(string(raw), "openlolo_tap") || time.Since(start) != 0 {
			t.Fatalf("tools/list = %s, %v after %v, want the answering box's at once", raw, err, time.Since(start))
		}

		// While a listing waits for boxes that do not answer, it holds no
		// lock a tools/call needs; it gives up after one timeout.
		down := &fleetBridge{f: &Fleet{boxes: []*FleetBox{(&memBox{hung: true}).on("a1"), (&memBox{hung: true}).on("a2")}, now: time.Now}}
		start = time.Now()
		done := make(chan error)
		go func() {
			_, err := down.handle(ctx, "tools/list", nil)
			done <- err
		}()
		synctest.Wait()
		if down.mu.TryLock() {
			down.mu.Unlock()
		} else {
			t.Error("tools/list holds the bridge's lock while it waits for the boxes")
		}
		if err := <-done; err == nil || !strings.Contains(err.Error(), "no box of the fleet listed its tools") || time.Since(start) != fleetListTimeout {
			t.Errorf("tools/list with no box answering = %v after %v, want an error after %v", err, time.Since(start), fleetListTimeout)
		}
	})
}
