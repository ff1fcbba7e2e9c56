package owner_test

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/owner"
)

// fakeControl stands in for the control service behind owner.Controller
// (the appliance's adapter over control.Service implements the same
// interface).
type fakeControl struct {
	mu        sync.Mutex
	paused    bool
	nPause    int
	nResume   int
	holder    string
	owner     bool // the owner holds control (holder names it)
	recent    []owner.Activity
	failNext  error
	recentErr error
}

var _ owner.Controller = (*fakeControl)(nil)

func (f *fakeControl) Pause(ctx context.Context, by string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if by != "owner" {
		return errors.New("pause by " + by)
	}
	if err := f.failNext; err != nil {
		f.failNext = nil
		return err
	}
	f.paused = true
	f.nPause++
	return nil
}

func (f *fakeControl) Resume(ctx context.Context, by string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paused = false
	f.nResume++
	return nil
}

func (f *fakeControl) Lease() control.LeaseState {
	f.mu.Lock()
	defer f.mu.Unlock()
	lv := control.LeaseState{Paused: f.paused}
	if f.paused {
		lv.PausedBy, lv.PausedByOwner, lv.PausedAt = "owner", true, time.Date(2026, 11, 29, 12, 0, 5, 0, time.UTC)
	}
	if f.holder != "" {
		lv.Name, lv.Holder, lv.Expires = f.holder, "client-1", time.Date(2026, 11, 29, 12, 1, 30, 0, time.UTC)
	}
	if f.owner {
		lv.Holder = control.OwnerID
	}
	return lv
}

func (f *fakeControl) Recent(ctx context.Context, n int) ([]owner.Activity, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.recentErr != nil {
		return nil, f.recentErr
	}
	if len(f.recent) > n {
		return f.recent[:n], nil
	}
	return f.recent, nil
}

func (f *fakeControl) pauses() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nPause
}
