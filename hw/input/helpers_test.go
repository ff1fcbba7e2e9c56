package input

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/hid"
)

// fakeClock is a clock whose time only moves when Sleep or Advance is
// called, so paced inputs run instantly in tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.Advance(d)
	}
	return nil
}

// rec is one recorded write: kind, bytes and the time it was issued
// (relative to the recorder's start).
type rec struct {
	kind   hid.Kind
	report []byte
	at     time.Duration
}

func (r rec) String() string { return fmt.Sprintf("%v@%v[% x]", r.kind, r.at, r.report) }

var errUnplugged = errors.New("hidg: no such device")

// recorder is a Writer that records what it is given. delay advances the
// fake clock on each write (a slow host); writes numbered failFrom and
// later (1-based; 0 = never) fail with errUnplugged unless failOnly is
// set, then only write failFrom fails; after(n) runs after write n.
type recorder struct {
	mu       sync.Mutex
	clock    *fakeClock
	start    time.Time
	writes   []rec
	delay    time.Duration
	failFrom int
	failOnly bool
	after    func(n int)
	n        int
}

func newRecorder(c *fakeClock) *recorder { return &recorder{clock: c, start: c.Now()} }

func (r *recorder) WriteReport(ctx context.Context, k hid.Kind, report []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r.mu.Lock()
	r.n++
	n := r.n
	fail := r.failFrom > 0 && (n == r.failFrom || (!r.failOnly && n > r.failFrom))
	if !fail {
		r.writes = append(r.writes, rec{k, append([]byte(nil), report...), r.clock.Now().Sub(r.start)})
	}
	after := r.after
	r.mu.Unlock()
	r.clock.Advance(r.delay)
	if after != nil {
		after(n)
	}
	if fail {
		return errUnplugged
	}
	return nil
}

func (r *recorder) recs() []rec {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]rec(nil), r.writes...)
}

// newDriver returns a driver on a fake clock with a recorder.
func newDriver(t *testing.T, p Profile) (*Driver, *recorder, *fakeClock) {
	t.Helper()
	c := newFakeClock()
	r := newRecorder(c)
	d, err := New(Options{Writer: r, Profile: p, Now: c.Now, Sleep: c.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	return d, r, c
}

// want builds an expected record.
func want(k hid.Kind, ms float64, report []byte) rec {
	return rec{k, report, time.Duration(ms * float64(time.Millisecond))}
}

func checkRecs(t *testing.T, got, want []rec) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d writes, want %d:\ngot  %v\nwant %v", len(got), len(want), got, want)
	}
	for i := range got {
		if got[i].kind != want[i].kind || string(got[i].report) != string(want[i].report) || got[i].at != want[i].at {
			t.Errorf("write %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// decoder decodes recorded reports with the parsed descriptors, as a
// host would.
func decoder(t *testing.T) func(rec) hid.Decoded {
	t.Helper()
	ds := map[hid.Kind]*hid.Descriptor{}
	for _, k := range hid.Kinds() {
		f, _ := hid.FunctionFor(k)
		d, err := hid.Parse(f.Descriptor)
		if err != nil {
			t.Fatal(err)
		}
		ds[k] = d
	}
	return func(r rec) hid.Decoded {
		t.Helper()
		got, err := ds[r.kind].Decode(r.report)
		if err != nil {
			t.Fatalf("decode %v: %v", r, err)
		}
		return got
	}
}
