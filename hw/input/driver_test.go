package input

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

func TestNewErrors(t *testing.T) {
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "Writer is nil") {
		t.Errorf("New without a writer = %v", err)
	}
	if _, err := New(Options{Writer: newRecorder(newFakeClock()), Profile: 9}); err == nil || !strings.Contains(err.Error(), "unknown profile") {
		t.Errorf("New with profile 9 = %v", err)
	}
}

func TestProfiles(t *testing.T) {
	tests := []struct {
		p        Profile
		name     string
		platform phone.Platform
		pointer  hid.Kind
		back     bool
	}{
		{IOS, "ios", phone.IOS, hid.KindAbsMouse, false},
		{Android, "android", phone.Android, hid.KindTouch, true},
		{IOSRelative, "ios-relative", phone.IOS, hid.KindRelMouse, false},
	}
	for _, tt := range tests {
		if tt.p.String() != tt.name || tt.p.Platform() != tt.platform || tt.p.Pointer() != tt.pointer {
			t.Errorf("%v: name %q platform %q pointer %v", tt.p, tt.p.String(), tt.p.Platform(), tt.p.Pointer())
		}
		if p, err := ParseProfile(tt.name); err != nil || p != tt.p {
			t.Errorf("ParseProfile(%q) = %v, %v", tt.name, p, err)
		}
		if k := tt.p.Kinds(); !slices.Equal(k, []hid.Kind{hid.KindKeyboard, hid.KindConsumer, tt.pointer}) {
			t.Errorf("%v.Kinds() = %v, want keyboard, consumer, then the pointer last", tt.p, k)
		}
		if got := slices.Contains(tt.p.Buttons(), phone.Back); got != tt.back {
			t.Errorf("%v.Buttons() has back = %v, want %v", tt.p, got, tt.back)
		}
	}
	if _, err := ParseProfile("windows"); err == nil || !strings.Contains(err.Error(), `"windows"`) {
		t.Errorf("ParseProfile(windows) = %v", err)
	}
	if s := Profile(7).String(); s != "profile(7)" {
		t.Errorf("Profile(7) = %q", s)
	}
}

func TestReleaseAll(t *testing.T) {
	d, r, _ := newDriver(t, Android)
	if err := d.ReleaseAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	kbd, cons, touch := hid.Keyboard(0), hid.Consumer(0), hid.Touch(hid.TouchState{})
	checkRecs(t, r.recs(), []rec{
		want(hid.KindKeyboard, 0, kbd), want(hid.KindKeyboard, 15, kbd), want(hid.KindKeyboard, 30, kbd),
		want(hid.KindConsumer, 30, cons), want(hid.KindConsumer, 45, cons), want(hid.KindConsumer, 60, cons),
		want(hid.KindTouch, 60, touch), want(hid.KindTouch, 75, touch), want(hid.KindTouch, 90, touch),
	})

	// The keyboard's first release is lost; the other functions are
	// still released.
	d, r, _ = newDriver(t, IOS)
	r.failFrom, r.failOnly = 1, true
	err := d.ReleaseAll(context.Background())
	if !errors.Is(err, phone.ErrInputFailed) || !errors.Is(err, errUnplugged) || !strings.Contains(err.Error(), "keyboard") {
		t.Errorf("ReleaseAll with a failing writer = %v, want ErrInputFailed wrapping the keyboard write error", err)
	}
	var kinds []hid.Kind
	for _, w := range r.recs() {
		kinds = append(kinds, w.kind)
	}
	if !slices.Equal(kinds, []hid.Kind{hid.KindConsumer, hid.KindConsumer, hid.KindConsumer, hid.KindAbsMouse, hid.KindAbsMouse, hid.KindAbsMouse}) {
		t.Errorf("after the keyboard failed, released %v; want consumer and pointer 3 times each", kinds)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.ReleaseAll(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("ReleaseAll(cancelled) = %v, want context.Canceled", err)
	}
}

func TestTimingDefaults(t *testing.T) {
	got := Timing{ChordHold: time.Second}.withDefaults()
	want := Timing{TapHold: 70 * time.Millisecond, KeyHold: 50 * time.Millisecond, ChordHold: time.Second,
		ButtonHold: 100 * time.Millisecond, Settle: 80 * time.Millisecond, Releases: 3, ReleaseGap: 15 * time.Millisecond}
	if got != want {
		t.Errorf("withDefaults = %+v, want %+v", got, want)
	}
}

// TestSerialized checks that concurrent inputs never interleave: each
// input's writes are contiguous.
func TestSerialized(t *testing.T) {
	d, r, _ := newDriver(t, Android)
	done := make(chan error, 3)
	go func() { _, err := d.Type(context.Background(), "abc"); done <- err }()
	go func() { _, err := d.Press(context.Background(), phone.VolumeUp); done <- err }()
	go func() {
		_, err := d.Touch(context.Background(), phone.Swipe(phone.Point{X: 0.1, Y: 0.1}, phone.Point{X: 0.9, Y: 0.9}, 0, 200*time.Millisecond, 0, 60))
		done <- err
	}()
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	// Group the writes by kind runs: each kind must appear in one run
	// (the three inputs use three different functions).
	var runs []hid.Kind
	for _, w := range r.recs() {
		if len(runs) == 0 || runs[len(runs)-1] != w.kind {
			runs = append(runs, w.kind)
		}
	}
	if len(runs) != 3 {
		t.Errorf("writes interleave: runs of kinds %v", runs)
	}
}
