package mcp_test

import (
	"testing"

	"github.com/openlolo/openlolo/api"
)

// openlolo_status says whether the box can be reached from outside the LAN
// and, when not, why: an agent that lost the box remotely can read it on
// the LAN.
func TestStatusReportsRemoteEntry(t *testing.T) {
	tests := []struct {
		name   string
		remote *api.RemoteEntry
		want   map[string]any
	}{
		{"no remote entry", nil, map[string]any{"state": "off", "url": ""}},
		{"needs login", &api.RemoteEntry{State: "needs_login", Reason: "The box is not logged in to a tailnet."},
			map[string]any{"state": "needs_login", "reason": "The box is not logged in to a tailnet.", "url": ""}},
		{"running", &api.RemoteEntry{State: "running", URL: "https://openlolo-ab12.tail1.ts.net"},
			map[string]any{"state": "running", "reason": "", "url": "https://openlolo-ab12.tail1.ts.net"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBox(t, boxOpts{remote: func() *api.RemoteEntry { return tt.remote }})
			cs := b.session(t, "agent", readScope)
			_, st := call(t, cs, "openlolo_status", nil)
			remote, ok := st["remote"].(map[string]any)
			if !ok {
				t.Fatalf("openlolo_status has no remote object: %v", st)
			}
			for k, v := range tt.want {
				if remote[k] != v {
					t.Errorf("remote[%q] = %v, want %v", k, remote[k], v)
				}
			}
			if tt.remote == nil && remote["reason"] == "" {
				t.Error("remote entry off without a reason a person can act on")
			}
		})
	}
}
