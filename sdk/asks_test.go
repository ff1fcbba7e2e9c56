package sdk

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
)

// TestAskAnswersDecode reads the box's golden ask answers (appliance/mcp
// writes api/testdata/asks.json): pending is an *AskPendingError with the
// ask and the operation id, denied and expired are *Refused with their
// codes and the ask, allowed is a plain result.
func TestAskAnswersDecode(t *testing.T) {
	b, err := os.ReadFile("../api/testdata/asks.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string]json.RawMessage
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	decode := func(name string, isError bool) (*Result, error) {
		t.Helper()
		sc, ok := golden[name]
		if !ok {
			t.Fatalf("asks.json has no %s", name)
		}
		raw, _ := json.Marshal(map[string]any{"structuredContent": sc, "isError": isError,
			"content": []map[string]string{{"type": "text", "text": name}}})
		return decodeToolResult("openlolo_launch_app", raw)
	}

	res, err := decode("pending", false)
	ask, ok := IsAskPending(err)
	if !ok || res == nil {
		t.Fatalf("pending: %v, want an *AskPendingError", err)
	}
	if ask.OperationID == "" || ask.OperationID != res.Outcome.OperationID || ask.Ask.ID == "" || ask.Ask.State != api.AskPending ||
		!strings.HasSuffix(ask.Ask.URL, "/asks/"+ask.Ask.ID) || ask.Ask.What == "" || ask.Tool != "openlolo_launch_app" {
		t.Fatalf("pending: %+v", ask)
	}
	if !strings.Contains(err.Error(), ask.OperationID) || !strings.Contains(err.Error(), ask.Ask.URL) {
		t.Errorf("the error does not say how to retry: %v", err)
	}

	for _, c := range []struct {
		name     string
		sentinel error
		state    api.AskState
	}{{"denied", ErrAskDenied, api.AskDenied}, {"expired", ErrAskExpired, api.AskExpired}} {
		res, err := decode(c.name, true)
		var r *Refused
		if !errors.As(err, &r) || !errors.Is(err, c.sentinel) || r.Dispatched {
			t.Fatalf("%s: %v, want a *Refused matching %v, not dispatched", c.name, err, c.sentinel)
		}
		if _, ok := IsAskPending(err); ok {
			t.Errorf("%s is an AskPendingError", c.name)
		}
		if res.Outcome.Ask == nil || res.Outcome.Ask.State != c.state {
			t.Errorf("%s: the answer's ask %+v", c.name, res.Outcome.Ask)
		}
	}
	for _, name := range []string{"allowed", "allowed_again"} {
		res, err := decode(name, false)
		if err != nil || res.Status() != "ok" {
			t.Fatalf("%s: %v %v", name, res, err)
		}
		if _, err := Decode[api.LaunchAppResult](res); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
