package control_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/appliance/store"
)

// slowRelease is a phone whose ReleaseAll waits until let is closed, as
// a HID gadget's repeated release reports take a while.
type slowRelease struct {
	*controltest.Phone
	let chan struct{}
}

func (p slowRelease) ReleaseAll(ctx context.Context) error {
	select {
	case <-p.let:
	case <-ctx.Done():
		return ctx.Err()
	}
	return p.Phone.ReleaseAll(ctx)
}

// The release at start held New (and so the box's listener) for about
// 90 ms on a HID gadget. New now returns before it ends, and an input
// waits for it: nothing reaches the phone before the release.
func TestStartReleaseBeforeInputsNotBeforeListening(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, err := store.Open(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		clock := controltest.NewClock(time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC))
		ph := slowRelease{controltest.New(clock.Now), make(chan struct{})}
		made := make(chan *control.Service, 1)
		go func() {
			svc, err := control.New(ctx, control.Config{Store: st, Phone: ph, Now: clock.Now, Grants: &grants{revoked: map[string]bool{}}})
			if err != nil {
				t.Error(err)
			}
			made <- svc
		}()
		var svc *control.Service
		select {
		case svc = <-made:
		case <-time.After(time.Second): // the bubble's clock: no real wait
			close(ph.let)
			t.Fatal("New waited for the phone's release at start")
		}
		if svc == nil {
			return
		}
		answered := make(chan control.Answer[api.KeyResult], 1)
		go func() { answered <- control.Do(ctx, svc, keyCall(alice, id1, ph, "a")) }()
		synctest.Wait()
		select {
		case a := <-answered:
			t.Fatalf("an input ran before the release at start: %s %+v", a.Status, a.Error)
		default:
		}
		if ph.Inputs() != 0 || ph.Released() != 0 {
			t.Fatalf("before the release: inputs %d, released %d", ph.Inputs(), ph.Released())
		}
		close(ph.let)
		wantCode(t, <-answered, "")
		if ph.Inputs() != 1 || ph.Released() != 1 {
			t.Fatalf("after the release: inputs %d, released %d", ph.Inputs(), ph.Released())
		}
	})
}
