package input

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openlolo/openlolo/phone"
)

// inputs are one of each input, run against every profile.
var inputs = []struct {
	name string
	run  func(context.Context, *Driver) error
}{
	{"tap", func(ctx context.Context, d *Driver) error {
		_, err := d.Touch(ctx, phone.Tap(phone.Point{X: 0.3, Y: 0.6}, 70*time.Millisecond))
		return err
	}},
	{"swipe", func(ctx context.Context, d *Driver) error {
		_, err := d.Touch(ctx, phone.Swipe(phone.Point{X: 0.1, Y: 0.9}, phone.Point{X: 0.9, Y: 0.1}, 80*time.Millisecond, 100*time.Millisecond, 20*time.Millisecond, 60))
		return err
	}},
	{"type", func(ctx context.Context, d *Driver) error { _, err := d.Type(ctx, "Ab"); return err }},
	{"chord", func(ctx context.Context, d *Driver) error {
		_, err := d.Key(ctx, phone.Key{Name: "space", Mods: phone.Cmd})
		return err
	}},
	{"home", func(ctx context.Context, d *Driver) error { _, err := d.Press(ctx, phone.Home); return err }},
	{"lock", func(ctx context.Context, d *Driver) error { _, err := d.Press(ctx, phone.Lock); return err }},
}

// writesOf counts the writes an input makes when nothing fails.
func writesOf(t *testing.T, p Profile, run func(context.Context, *Driver) error) int {
	d, r, _ := newDriver(t, p)
	if err := run(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	return len(r.recs())
}

// TestEveryWriteFailure fails each write of each input in turn: the error
// always wraps phone.ErrInputFailed, and afterwards nothing is held when
// the releases went through.
func TestEveryWriteFailure(t *testing.T) {
	for _, p := range []Profile{Android, IOS, IOSRelative} {
		for _, in := range inputs {
			n := writesOf(t, p, in.run)
			for fail := 1; fail <= n; fail++ {
				d, r, _ := newDriver(t, p)
				r.failFrom, r.failOnly = fail, true
				err := in.run(context.Background(), d)
				if !errors.Is(err, phone.ErrInputFailed) || !errors.Is(err, errUnplugged) {
					t.Fatalf("%v %s, write %d of %d fails: %v, want ErrInputFailed", p, in.name, fail, n, err)
				}
				for k, held := range d.held {
					if held {
						t.Errorf("%v %s, write %d fails: %v still held after the releases succeeded", p, in.name, fail, k)
					}
				}
			}
		}
	}
}

// TestEveryCancel cancels ctx after each write of each input in turn: the
// error wraps context.Canceled and the input's last writes release.
func TestEveryCancel(t *testing.T) {
	for _, p := range []Profile{Android, IOS, IOSRelative} {
		for _, in := range inputs {
			n := writesOf(t, p, in.run)
			for stop := 1; stop < n; stop++ {
				d, r, _ := newDriver(t, p)
				ctx, cancel := context.WithCancel(context.Background())
				r.after = func(i int) {
					if i == stop {
						cancel()
					}
				}
				err := in.run(ctx, d)
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%v %s cancelled after write %d of %d: %v, want context.Canceled", p, in.name, stop, n, err)
				}
				for k, held := range d.held {
					if held {
						t.Errorf("%v %s cancelled after write %d: %v still held", p, in.name, stop, k)
					}
				}
				if len(r.recs()) > n+3 {
					t.Errorf("%v %s cancelled after write %d: %d writes, more than the %d of a whole run plus releases", p, in.name, stop, len(r.recs()), n)
				}
			}
		}
	}
}
