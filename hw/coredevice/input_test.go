package coredevice_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/hw/coredevice/remotehid"
	"github.com/openlolo/openlolo/phone"
)

// clock is a settable clock for the stream's staleness.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// inputPhone starts a fake iPhone with the input services and a backend
// on it, ready.
func inputPhone(t *testing.T, version string, in *coredevicetest.Input, o coredevice.Options) (*coredevicetest.State, *coredevice.Backend) {
	t.Helper()
	st := &coredevicetest.State{Input: in, Apps: map[string]string{
		"com.apple.mobilesafari": "Safari", "com.apple.mobilephone": "Phone", "com.apple.mobilenotes": "Notes"}}
	p := &coredevicetest.Phone{ProductVersion: version, DeveloperMode: true}
	p.Services = st.Services(p)
	mux := p.Start(t)
	o.Socket, o.StateDir, o.Retry = mux.Socket, t.TempDir(), 10*time.Millisecond
	if o.Keepalive == 0 {
		o.Keepalive = 10 * time.Millisecond
	}
	o.StreamSettle, o.KeyInterval = time.Millisecond, time.Millisecond
	if o.InputIdle == 0 {
		o.InputIdle = -1
	}
	b, err := coredevice.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	waitState(t, b.Subscribe(t.Context()), b, "ready")
	return st, b
}

// until polls cond on the real clock: the fake iPhone answers over real
// sockets, which testing/synctest's fake time does not cover.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestInput(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	in := &coredevicetest.Input{}
	_, b := inputPhone(t, "27.0", in, coredevice.Options{})
	info := b.Info()
	if !info.Touch || !info.Keyboard || !info.HasButton(phone.Home) || !info.HasButton(phone.Lock) || info.HasButton(phone.Back) {
		t.Errorf("Info = %+v, want touch, keyboard and the iPhone's buttons", info)
	}
	if len(in.Starts()) != 0 {
		t.Fatal("a media stream started before any input")
	}

	// A tap lands at the point asked, as fractions of the portrait screen.
	rep, err := b.Touch(ctx, phone.Tap(phone.Point{X: .25, Y: .75}, 10*time.Millisecond))
	if err != nil || rep.Reports != 3 {
		t.Fatalf("Touch = %+v, %v", rep, err)
	}
	x, y := remotehid.Coord(.25), remotehid.Coord(.75)
	// Reports are one-way: wait until the fake has read them.
	until(t, "the tap's reports", func() bool { return len(in.Touches()) >= 3 })
	touches := in.Touches()
	if len(touches) != 3 || !touches[0].Down || touches[0].X != x || touches[0].Y != y || touches[2].Down || touches[2].X != x || touches[2].Y != y {
		t.Errorf("touches %+v, want contact and release at (%d, %d)", touches, x, y)
	}
	if s := in.Starts(); len(s) != 1 || s[0].Receiver.Port() == 0 || s[0].Receiver.Addr() != coredevicetest.HostAddr || s[0].Sender != coredevicetest.DeviceAddr {
		t.Errorf("stream starts %+v", s)
	}
	// A swipe moves through its path on one contact.
	if rep, err = b.Touch(ctx, phone.Swipe(phone.Point{X: .5, Y: .8}, phone.Point{X: .5, Y: .2}, 0, 100*time.Millisecond, 0, 60)); err != nil || rep.Reports < 4 {
		t.Errorf("swipe = %+v, %v", rep, err)
	}
	until(t, "the swipe's reports", func() bool { return len(in.Touches()) >= 3+rep.Reports })
	sw := in.Touches()[3:]
	if len(sw) < 4 || !sw[0].Down || sw[len(sw)-1].Down || sw[0].Y <= sw[len(sw)-2].Y {
		t.Errorf("swipe touches %+v", sw)
	}

	// cmd-V: the modifier is down before V and after it (the paste the
	// send_text recipe relies on).
	if _, err := b.Key(ctx, phone.Key{Name: "v", Mods: phone.Cmd}); err != nil {
		t.Fatal(err)
	}
	want := [][]uint8{{0xE3}, {0x19, 0xE3}, {0xE3}, nil}
	until(t, "cmd-V", func() bool { return len(in.Keys()) >= len(want) })
	if got := in.Keys(); !equalKeys(got, want) {
		t.Errorf("cmd-V keys %v, want %v", got, want)
	}
	if _, err := b.Type(ctx, "Hi"); err != nil {
		t.Fatal(err)
	}
	want = append(want, []uint8{0xE1}, []uint8{0x0B, 0xE1}, []uint8{0xE1}, nil, []uint8{0x0C}, nil)
	until(t, "Hi", func() bool { return len(in.Keys()) >= len(want) })
	if got := in.Keys(); !equalKeys(got, want) {
		t.Errorf("keys after Type(Hi) %v, want %v", got, want)
	}
	if _, err := b.Type(ctx, "é"); !errors.Is(err, phone.ErrUnsupportedText) {
		t.Errorf("Type(é) = %v, want ErrUnsupportedText", err)
	}
	if _, err := b.Key(ctx, phone.Key{Name: "nope"}); !errors.Is(err, phone.ErrUnsupportedKey) {
		t.Errorf("Key(nope) = %v", err)
	}

	if _, err := b.Press(ctx, phone.Home); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Press(ctx, phone.VolumeDown); err != nil {
		t.Fatal(err)
	}
	ev := func(u remotehid.Usage, s remotehid.ButtonState) remotehid.ButtonEvent {
		return remotehid.ButtonEvent{Usage: u, State: s}
	}
	wantB := []remotehid.ButtonEvent{ev(remotehid.HomeButton, remotehid.ButtonDown), ev(remotehid.HomeButton, remotehid.ButtonUp),
		ev(remotehid.VolumeDownButton, remotehid.ButtonDown), ev(remotehid.VolumeDownButton, remotehid.ButtonUp)}
	until(t, "the buttons", func() bool { return len(in.Buttons()) >= len(wantB) })
	if got := in.Buttons(); !slices.Equal(got, wantB) {
		t.Errorf("buttons %v, want %v", got, wantB)
	}
	if _, err := b.Press(ctx, phone.Back); !errors.Is(err, phone.ErrUnsupportedButton) {
		t.Errorf("Press(back) = %v", err)
	}
	if err := b.ReleaseAll(ctx); err != nil {
		t.Errorf("ReleaseAll = %v", err)
	}
	// One stream served it all, kept alive by receiver reports; nothing
	// reached the phone outside a live stream.
	until(t, "receiver reports", func() bool { return in.ReceiverReports() >= 2 })
	if n := len(in.Starts()); n != 1 || in.Dropped() != 0 {
		t.Errorf("%d stream starts, %d reports dropped", n, in.Dropped())
	}
	b.Close()
	if in.Sessions() != 0 || in.Stops() != 1 {
		t.Errorf("after Close: %d sessions, %d stops; want the stream stopped", in.Sessions(), in.Stops())
	}
}

func equalKeys(a, b [][]uint8) bool {
	return slices.EqualFunc(a, b, func(x, y []uint8) bool { return slices.Equal(x, y) })
}

// TestInputStaleStream: a stream whose video stopped is replaced before
// the next input, which then lands (the phone drops input otherwise).
func TestInputStaleStream(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	in := &coredevicetest.Input{}
	_, b := inputPhone(t, "27.1", in, coredevice.Options{Now: clk.Now, StreamStale: 3 * time.Second})
	tap := phone.Tap(phone.Point{X: .5, Y: .5}, 5*time.Millisecond)
	if _, err := b.Touch(ctx, tap); err != nil {
		t.Fatal(err)
	}
	until(t, "the first tap", func() bool { return len(in.Touches()) == 3 })
	sent := in.Stall()
	until(t, "the stream's last video", func() bool { return coredevice.StreamPackets(b) == sent })
	clk.Advance(2 * time.Second) // not stale yet: no new stream
	if _, err := b.Touch(ctx, tap); err != nil {
		t.Fatal(err)
	}
	until(t, "the dropped tap", func() bool { return in.Dropped() == 3 })
	if n := len(in.Starts()); n != 1 || in.Dropped() != 3 {
		t.Fatalf("%d starts, %d dropped; want the stalled stream kept and the tap dropped, as a phone does", n, in.Dropped())
	}
	clk.Advance(2 * time.Second) // 4 s without video: stale
	if _, err := b.Touch(ctx, tap); err != nil {
		t.Fatal(err)
	}
	until(t, "the tap on the new stream", func() bool { return len(in.Touches())+in.Dropped() >= 9 })
	if n := len(in.Starts()); n != 2 || in.Stops() != 1 || len(in.Touches()) != 6 || in.Dropped() != 3 {
		t.Errorf("%d starts, %d stops, %d touches, %d dropped; want a new stream and the tap landed", n, in.Stops(), len(in.Touches()), in.Dropped())
	}
}

// TestInputKeepalive: without receiver reports the fake's encoder stalls
// (as the phone's does after about 25 s); with them it keeps streaming.
func TestInputKeepalive(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	in := &coredevicetest.Input{StallWithoutRTCP: 150 * time.Millisecond}
	_, b := inputPhone(t, "27.0", in, coredevice.Options{Keepalive: 20 * time.Millisecond})
	if _, err := b.Touch(ctx, phone.Tap(phone.Point{X: .1, Y: .1}, time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	p0 := coredevice.StreamPackets(b)
	until(t, "video well past the stall time", func() bool { return coredevice.StreamPackets(b) > p0+20 })
	if n := len(in.Starts()); n != 1 {
		t.Errorf("%d starts", n)
	}
}

// TestInputRefused: below iOS 27, and on a phone that refuses remote
// control, input answers UNSUPPORTED naming the gadget backend, and
// nothing reaches the phone's input services.
func TestInputRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for _, tc := range []struct {
		version, says string
		refuse        bool
	}{
		{"26.4", "iOS 26 takes no touch", true},
		{"27.0", "refuses remote control", true},
	} {
		in := &coredevicetest.Input{Refuse: tc.refuse}
		_, b := inputPhone(t, tc.version, in, coredevice.Options{})
		if info := b.Info(); tc.version < "27" && (info.Touch || info.Keyboard || len(info.Buttons) > 0) {
			t.Errorf("iOS %s Info = %+v, want no input", tc.version, info)
		}
		for _, err := range []error{
			func() error {
				_, err := b.Touch(ctx, phone.Tap(phone.Point{X: .5, Y: .5}, time.Millisecond))
				return err
			}(),
			func() error { _, err := b.Key(ctx, phone.Key{Name: "v", Mods: phone.Cmd}); return err }(),
			func() error { _, err := b.Press(ctx, phone.Home); return err }(),
		} {
			if !errors.Is(err, phone.ErrUnsupported) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "--phone gadget") {
				t.Errorf("iOS %s input = %v, want UNSUPPORTED saying %q and naming the gadget backend", tc.version, err, tc.says)
			}
			if steps := phone.NextSteps(err); len(steps) == 0 || !strings.Contains(steps[0], "--phone gadget") {
				t.Errorf("iOS %s next steps %q, want the gadget backend first", tc.version, steps)
			}
		}
		if len(in.Touches())+len(in.Keys())+len(in.Buttons())+in.Dropped() != 0 || in.Sessions() != 0 {
			t.Errorf("iOS %s: input reached the phone", tc.version)
		}
	}
}

func TestOpenURL(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	st, b := inputPhone(t, "27.0", nil, coredevice.Options{})
	if !b.Info().Can.OpenURL {
		t.Fatal("Can.OpenURL is false")
	}
	for _, u := range []string{"https://example.com/a?b=c", "tel:+15551234", "myapp://thing/1"} {
		if rep, err := phone.OpenURL(ctx, b, u, phone.App{}); err != nil || rep.Reports != 1 {
			t.Errorf("OpenURL(%s) = %+v, %v", u, rep, err)
		}
	}
	want := []coredevicetest.Open{
		{BundleID: "com.apple.mobilesafari", URL: "https://example.com/a?b=c"},
		{BundleID: "com.apple.mobilephone", URL: "tel:+15551234", Terminated: true},
		{BundleID: "com.apple.mobilesafari", URL: "myapp://thing/1"},
	}
	if got := st.Opens(); !slices.Equal(got, want) {
		t.Errorf("launches %+v\nwant %+v", got, want)
	}
	// A named app (the api's bundle_id, an app profile's) takes the URL
	// at a cold launch.
	if _, err := phone.OpenURLIn(ctx, b, "notes://x", "com.apple.mobilenotes", phone.App{}); err != nil {
		t.Errorf("OpenURLIn = %v", err)
	}
	if got := st.Opens(); len(got) != 4 || got[3] != (coredevicetest.Open{BundleID: "com.apple.mobilenotes", URL: "notes://x", Terminated: true}) {
		t.Errorf("launches %+v, want Notes cold-launched with the URL", got)
	}
	if _, err := b.OpenURL(ctx, "mailto:a@b.c"); err == nil {
		t.Error("OpenURL(mailto) with Mail not installed = nil, want the phone's refusal")
	}
}

// TestInputIdleStop: a stream no input used for InputIdle is stopped
// (it costs the phone an encoder), and the next input starts another.
func TestInputIdleStop(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	in := &coredevicetest.Input{}
	_, b := inputPhone(t, "27.0", in, coredevice.Options{InputIdle: 50 * time.Millisecond})
	tap := phone.Tap(phone.Point{X: .5, Y: .5}, time.Millisecond)
	if _, err := b.Touch(ctx, tap); err != nil {
		t.Fatal(err)
	}
	until(t, "the idle stream's stop", func() bool { return in.Stops() == 1 && in.Sessions() == 0 })
	if _, err := b.Touch(ctx, tap); err != nil {
		t.Fatal(err)
	}
	until(t, "the second tap", func() bool { return len(in.Touches()) == 6 })
	if n := len(in.Starts()); n != 2 || in.Dropped() != 0 {
		t.Errorf("%d starts, %d dropped", n, in.Dropped())
	}
}

// TestInputStreamHangs: a start the phone never answers fails within
// StreamStart, saying what clears it, and nothing reaches the phone.
func TestInputStreamHangs(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	in := &coredevicetest.Input{Hang: true}
	_, b := inputPhone(t, "27.0", in, coredevice.Options{StreamStart: 200 * time.Millisecond})
	_, err := b.Touch(ctx, phone.Tap(phone.Point{X: .5, Y: .5}, time.Millisecond))
	if !errors.Is(err, phone.ErrInputFailed) || !strings.Contains(err.Error(), "restarting the iPhone") {
		t.Errorf("Touch = %v, want INPUT_FAILED naming the restart", err)
	}
	if len(in.Touches())+in.Dropped() != 0 {
		t.Error("input reached the phone")
	}
}
