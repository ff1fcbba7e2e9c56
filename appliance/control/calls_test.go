package control_test

import (
	"context"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
)

// Recorded calls are written off the call's path in batches; the Activity
// page's read (RecentActions) still sees every call recorded before it,
// more than one batch of them included, in order.
func TestRecordedCallsReadBack(t *testing.T) {
	e := newEnv(t, control.Limits{})
	ctx := context.Background()
	const n = 600
	for i := 0; i < n; i++ {
		e.svc.RecordCall(ctx, alice, api.ToolStatus, api.Outcome{Status: api.StatusOK}, nil)
	}
	e.svc.RecordCall(ctx, alice, api.ToolTap, api.Outcome{Status: api.StatusFailed,
		Error: api.Errorf(api.CodePaused, "paused")}, []byte(`{"x":0.5,"y":0.25}`))
	acts, err := e.svc.RecentActions(ctx, 2*n)
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != n+1 {
		t.Fatalf("RecentActions right after %d recorded calls = %d rows, want all of them", n+1, len(acts))
	}
	if a := acts[0]; a.Tool != string(api.ToolTap) || a.Code != string(api.CodePaused) || a.Actor != alice.Name {
		t.Fatalf("newest row = %+v, want alice's refused tap with PAUSED", a)
	}
}
