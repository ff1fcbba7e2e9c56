package input

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

var at = phone.Point{X: 0.25, Y: 0.75}

const atX, atY = 8192, 24575 // hid.Scale(0.25), hid.Scale(0.75)

func TestTapAndroid(t *testing.T) {
	d, r, _ := newDriver(t, Android)
	rep, err := d.Touch(context.Background(), phone.Tap(at, 70*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	down := hid.Touch(hid.TouchState{Contact: true, X: atX, Y: atY})
	up := hid.Touch(hid.TouchState{X: atX, Y: atY})
	checkRecs(t, r.recs(), []rec{
		want(hid.KindTouch, 0, down),
		want(hid.KindTouch, 70, up), want(hid.KindTouch, 85, up), want(hid.KindTouch, 100, up),
	})
	if rep.Reports != 4 || rep.Skipped != 0 || rep.Took != 100*time.Millisecond || rep.MaxGap != 0 {
		t.Errorf("report = %+v, want 4 reports in 100ms", rep)
	}
	// What the host sees: tip down at 0.25/0.75 of the axis, then up.
	dec := decoder(t)
	got := dec(r.recs()[0])
	if x, _ := got.Value(hid.PageGenericDesktop, hid.UsageX); x != atX {
		t.Errorf("host X = %d, want %d", x, atX)
	}
	if tip, _ := dec(r.recs()[1]).Value(hid.PageDigitizer, hid.UsageTipSwitch); tip != 0 {
		t.Errorf("release has tip %d", tip)
	}
}

func TestTapSinglePoint(t *testing.T) {
	d, r, _ := newDriver(t, Android)
	if _, err := d.Touch(context.Background(), phone.Gesture{Steps: []phone.Step{{Point: at}}}); err != nil {
		t.Fatal(err)
	}
	if got := r.recs(); len(got) != 4 || got[1].at != 70*time.Millisecond {
		t.Errorf("single-point gesture writes %v, want contact then release after TapHold (70ms)", got)
	}
}

func TestTapIOS(t *testing.T) {
	d, r, _ := newDriver(t, IOS)
	rep, err := d.Touch(context.Background(), phone.Tap(at, 70*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	up := hid.AbsMouse(0, atX, atY, 0)
	checkRecs(t, r.recs(), []rec{
		want(hid.KindAbsMouse, 0, hid.AbsMouse(0, atX, atY, 0)),               // move
		want(hid.KindAbsMouse, 80, hid.AbsMouse(hid.ButtonLeft, atX, atY, 0)), // settle, press
		want(hid.KindAbsMouse, 150, up), want(hid.KindAbsMouse, 165, up), want(hid.KindAbsMouse, 180, up),
	})
	if rep.Reports != 5 || rep.Took != 180*time.Millisecond {
		t.Errorf("report = %+v", rep)
	}
}

func TestTapIOSRelative(t *testing.T) {
	c := newFakeClock()
	r := newRecorder(c)
	d, err := New(Options{Writer: r, Profile: IOSRelative, Now: c.Now, Sleep: c.Sleep, Calibration: Calibration{X: 400, Y: 800}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Touch(context.Background(), phone.Tap(phone.Point{X: 0.5, Y: 0.5}, 70*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	dec := decoder(t)
	ws := r.recs()
	homing := 10 // ceil(800 × 1.5 / 127)
	var x, y int32
	i := 0
	for ; i < len(ws); i++ {
		got := dec(ws[i])
		dx, _ := got.Value(hid.PageGenericDesktop, hid.UsageX)
		dy, _ := got.Value(hid.PageGenericDesktop, hid.UsageY)
		if i < homing {
			if dx != -127 || dy != -127 || len(got.Pressed(hid.PageButton)) != 0 {
				t.Fatalf("homing report %d = %d, %d", i, dx, dy)
			}
			continue
		}
		if len(got.Pressed(hid.PageButton)) != 0 {
			break
		}
		x += dx
		y += dy
	}
	if x != 200 || y != 400 {
		t.Errorf("moved %d, %d counts from the corner, want 200, 400", x, y)
	}
	if i >= len(ws) || ws[i].at != ws[i-1].at+80*time.Millisecond {
		t.Fatalf("no press 80 ms after the move: %v", ws)
	}
	if rest := ws[i+1:]; len(rest) != 3 || rest[0].at != ws[i].at+70*time.Millisecond {
		t.Errorf("after the press: %v, want 3 releases from 70 ms", rest)
	}
}

func TestSwipeAndroidCadence(t *testing.T) {
	d, r, _ := newDriver(t, Android)
	g := phone.Swipe(phone.Point{X: 0.5, Y: 0.8}, phone.Point{X: 0.5, Y: 0.2}, 80*time.Millisecond, 500*time.Millisecond, 50*time.Millisecond, 60)
	rep, err := d.Touch(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	// contact, 30 moves, 3 releases; the dwell and hold points repeat a
	// position and are not written.
	if rep.Reports != 34 || rep.Skipped != 0 {
		t.Errorf("report = %+v, want 34 reports, none skipped", rep)
	}
	if rep.MedianInterval < 16*time.Millisecond || rep.MedianInterval > 17*time.Millisecond || rep.MaxGap > 17*time.Millisecond {
		t.Errorf("cadence median %v max %v, want about 16.7ms", rep.MedianInterval, rep.MaxGap)
	}
	ws := r.recs()
	if ws[1].at != g.Steps[2].At || g.Steps[2].At <= 80*time.Millisecond {
		t.Errorf("first move at %v, want after the 80ms dwell", ws[1].at)
	}
	if ws[31].at != 630*time.Millisecond {
		t.Errorf("release at %v, want 630ms (dwell + move + hold)", ws[31].at)
	}
	dec := decoder(t)
	if y, _ := dec(ws[30]).Value(hid.PageGenericDesktop, hid.UsageY); y != int32(hid.Scale(0.2)) {
		t.Errorf("last move Y = %d, want %d", y, hid.Scale(0.2))
	}
}

// TestSwipeLateWriter: a host that takes 40 ms per report cannot keep 60
// points per second; the driver skips stale points instead of sending
// them in a burst, and still ends at the last point.
func TestSwipeLateWriter(t *testing.T) {
	d, r, _ := newDriver(t, Android)
	r.delay = 40 * time.Millisecond
	from, to := phone.Point{X: 0.1, Y: 0.5}, phone.Point{X: 0.9, Y: 0.5}
	g := phone.Swipe(from, to, 0, time.Second, 0, 60)
	rep, err := d.Touch(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped < 20 {
		t.Errorf("skipped %d points, want most of the 60 (writer takes 40ms per report)", rep.Skipped)
	}
	ws := r.recs()
	moves := ws[1 : len(ws)-3]
	if rep.Skipped+len(moves) != 60 {
		t.Errorf("%d skipped + %d written = %d, want the 60 path points", rep.Skipped, len(moves), rep.Skipped+len(moves))
	}
	dec := decoder(t)
	for i := 1; i < len(moves); i++ {
		if gap := moves[i].at - moves[i-1].at; gap < 40*time.Millisecond {
			t.Errorf("moves %d and %d are %v apart: a burst", i-1, i, gap)
		}
	}
	// Every written point is the newest one due when it was written
	// (never an older point sent late), and the path ends at to.
	start := ws[0].at + r.delay
	for _, m := range moves {
		x, _ := dec(m).Value(hid.PageGenericDesktop, hid.UsageX)
		newest := phone.Point{}
		for _, s := range g.Steps {
			if start+s.At <= m.at {
				newest = s.Point
			}
		}
		if x != int32(hid.Scale(newest.X)) {
			t.Errorf("move at %v sends X %d, but the newest due point is X %d", m.at, x, hid.Scale(newest.X))
		}
	}
	if x, _ := dec(moves[len(moves)-1]).Value(hid.PageGenericDesktop, hid.UsageX); x != int32(hid.Scale(to.X)) {
		t.Errorf("last move X = %d, want the end point %d", x, hid.Scale(to.X))
	}
	if rep.MaxGap < 40*time.Millisecond {
		t.Errorf("MaxGap %v, want at least the writer's 40ms", rep.MaxGap)
	}
}

func TestTouchCancelReleases(t *testing.T) {
	for _, p := range []Profile{Android, IOS, IOSRelative} {
		t.Run(p.String(), func(t *testing.T) {
			d, r, _ := newDriver(t, p)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			g := phone.Swipe(phone.Point{X: 0.2, Y: 0.2}, phone.Point{X: 0.8, Y: 0.8}, 0, time.Second, 0, 60)
			dec := decoder(t)
			held := 0
			r.after = func(int) {
				// Cancel after the press and two moves were written.
				ws := r.recs()
				if pressed(dec(ws[len(ws)-1])) {
					if held++; held == 3 {
						cancel()
					}
				}
			}
			_, err := d.Touch(ctx, g)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Touch with a cancelled ctx = %v, want context.Canceled", err)
			}
			ws := r.recs()
			if len(ws) < 4 {
				t.Fatalf("only %d writes", len(ws))
			}
			for _, w := range ws[len(ws)-3:] {
				if pressed(dec(w)) {
					t.Errorf("after cancel, %v still holds the contact", w)
				}
			}
			if !pressed(dec(ws[len(ws)-4])) {
				t.Errorf("the write before the releases was not a pressed move: %v", ws)
			}
			if d.held[p.Pointer()] {
				t.Errorf("driver still thinks the pointer is held")
			}
			if held != 3 {
				t.Errorf("%d pressed reports written, want exactly 3 then the releases", held)
			}
		})
	}
}

// pressed reports whether a decoded pointer report holds a contact.
func pressed(d hid.Decoded) bool {
	if tip, ok := d.Value(hid.PageDigitizer, hid.UsageTipSwitch); ok {
		return tip != 0
	}
	return len(d.Pressed(hid.PageButton)) > 0
}

func TestTouchWriteFailure(t *testing.T) {
	// The contact is written, the first move fails: the driver releases
	// (the releases succeed) and reports ErrInputFailed with the cause.
	d, r, _ := newDriver(t, Android)
	r.failFrom, r.failOnly = 2, true
	g := phone.Swipe(phone.Point{X: 0.2, Y: 0.2}, phone.Point{X: 0.8, Y: 0.8}, 0, 100*time.Millisecond, 0, 60)
	_, err := d.Touch(context.Background(), g)
	if !errors.Is(err, phone.ErrInputFailed) || !errors.Is(err, errUnplugged) {
		t.Fatalf("Touch = %v, want ErrInputFailed wrapping the write error", err)
	}
	ws := r.recs()
	dec := decoder(t)
	if len(ws) != 4 || !pressed(dec(ws[0])) || pressed(dec(ws[1])) || pressed(dec(ws[3])) {
		t.Errorf("writes %v, want the contact then 3 releases", ws)
	}
	// The failed move did not advance the position: releases are at the
	// contact point.
	if x, _ := dec(ws[1]).Value(hid.PageGenericDesktop, hid.UsageX); x != int32(hid.Scale(0.2)) {
		t.Errorf("release at X %d, want the last delivered %d", x, hid.Scale(0.2))
	}
}

func TestTouchUnplugged(t *testing.T) {
	// Every write fails: the state never advances, so the driver does not
	// think a contact is held.
	d, r, _ := newDriver(t, IOS)
	r.failFrom = 1
	_, err := d.Touch(context.Background(), phone.Tap(at, 70*time.Millisecond))
	if !errors.Is(err, phone.ErrInputFailed) {
		t.Fatalf("Touch = %v", err)
	}
	if d.held[hid.KindAbsMouse] || d.x != 0 || d.y != 0 {
		t.Errorf("state advanced on failed writes: held %v, pos %d,%d", d.held, d.x, d.y)
	}
	// A press delivered, its release lost: the pointer stays held.
	d, r, _ = newDriver(t, IOS)
	r.failFrom = 3
	if _, err := d.Touch(context.Background(), phone.Tap(at, 70*time.Millisecond)); !errors.Is(err, phone.ErrInputFailed) {
		t.Fatalf("Touch = %v", err)
	}
	if !d.held[hid.KindAbsMouse] {
		t.Errorf("release failed but the driver thinks the pointer is up")
	}
}

func TestTouchInvalid(t *testing.T) {
	d, r, _ := newDriver(t, Android)
	for _, g := range []phone.Gesture{{}, phone.Tap(phone.Point{X: 1.5, Y: 0}, 0)} {
		if _, err := d.Touch(context.Background(), g); err == nil {
			t.Errorf("Touch(%v) = nil error", g)
		}
	}
	if n := len(r.recs()); n != 0 {
		t.Errorf("invalid gestures wrote %d reports", n)
	}
}
