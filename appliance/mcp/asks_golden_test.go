package mcp

import (
	"context"
	"encoding/json"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
)

// asksGolden holds the answers of a marked call: pending, allowed (run
// once), denied and expired, as the SDKs' tests read them.
const asksGolden = "../../api/testdata/asks.json"

// TestAsksGolden launches Settings (a new box asks about it) on the
// simulated phone in a synctest bubble with a seeded crypto/rand, and
// compares each outcome's structuredContent with api/testdata/asks.json.
func TestAsksGolden(t *testing.T) {
	cryptotest.SetGlobalRandom(t, 14)
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
		ctl, err := control.New(ctx, control.Config{Store: st, Phone: ph, Now: time.Now})
		if err != nil {
			t.Fatal(err)
		}
		h, err := New(Config{Control: ctl, Info: func() api.BoxInfo { return api.BoxInfo{Name: "openlolo-golden", Version: "golden"} }})
		if err != nil {
			t.Fatal(err)
		}
		caller := &oauth.Caller{ClientID: "golden-client", ClientName: "golden agent", GrantID: "golden-grant", Entry: "lan",
			Scopes: []string{string(api.ScopePhoneRead), string(api.ScopePhoneControl)}}
		c := call{caller: caller, client: control.Client{ID: caller.ClientID, Name: caller.ClientName, GrantID: caller.GrantID, Issuer: caller.Issuer}}
		launch := func(id string) (json.RawMessage, rendered) {
			t.Helper()
			synctest.Wait()
			c.raw = json.RawMessage(`{"bundle_id":"com.apple.Preferences","observe":false,"operation_id":"` + id + `"}`)
			r := h.tools[string(api.ToolLaunchApp)].run(h, ctx, c)
			b, err := json.Marshal(r.answer)
			if err != nil {
				t.Fatal(err)
			}
			return b, r
		}
		askID := func(b json.RawMessage) string {
			var o api.Outcome
			if err := json.Unmarshal(b, &o); err != nil || o.Ask == nil {
				t.Fatalf("no ask in %s", b)
			}
			return o.Ask.ID
		}
		const (
			opAllow  = "20000000-0000-4000-8000-000000000001"
			opDeny   = "20000000-0000-4000-8000-000000000002"
			opExpire = "20000000-0000-4000-8000-000000000003"
		)
		out := map[string]json.RawMessage{}
		var r rendered
		out["pending"], r = launch(opAllow)
		if r.outcome.Failed() || r.text == "" || r.outcome.Status != api.StatusPending {
			t.Fatalf("pending rendered as %+v: %q", r.outcome, r.text)
		}
		if _, err := ctl.DecideAsk(ctx, askID(out["pending"]), true, false); err != nil {
			t.Fatal(err)
		}
		out["allowed"], _ = launch(opAllow)
		out["allowed_again"], _ = launch(opAllow)
		p, _ := launch(opDeny)
		if _, err := ctl.DecideAsk(ctx, askID(p), false, false); err != nil {
			t.Fatal(err)
		}
		out["denied"], r = launch(opDeny)
		if !r.outcome.Failed() {
			t.Fatal("a denied answer is not an error")
		}
		launch(opExpire)
		time.Sleep(api.AskTTL)
		out["expired"], _ = launch(opExpire)
		b, _ := json.Marshal(out)
		goldenFile(t, asksGolden, b)
	})
}
