package owner

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

func testSim(t *testing.T) *sim.Phone {
	t.Helper()
	ph, err := sim.New(sim.Options{Size: image.Pt(390, 844), Clock: sim.FixedClock(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ph.Close() })
	return ph
}

// The hub captures only while someone watches: the first viewer starts
// the loop and gets the picture, an unchanged screen sends nothing more
// (though the loop looks FPS times a second), a change sends one new
// picture to every viewer, and the last viewer leaving ends the loop
// (synctest.Test fails if any goroutine of the bubble is left running).
func TestLiveHubCapturesOnlyWhileWatched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ph := testSim(t)
		h := newLiveHub(PhoneScreen(ph), LiveOptions{}, slog.New(slog.DiscardHandler))
		time.Sleep(time.Second)
		if n, c := h.stats(); n != 0 || c != 0 {
			t.Fatalf("without a viewer the hub took %d screenshots and %d encodings", n, c)
		}
		a, err := h.join("s1")
		if err != nil {
			t.Fatal(err)
		}
		first := <-a.frames
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(first.jpeg))
		if err != nil || cfg.Width != 390 || cfg.Height != 844 {
			t.Fatalf("first picture %+v, %v; want a 390x844 JPEG", cfg, err)
		}
		b, err := h.join("s2")
		if err != nil {
			t.Fatal(err)
		}
		if got := <-b.frames; got != first {
			t.Fatal("a second viewer did not get the current picture at once")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		caps, encs := h.stats()
		if caps < DefaultLiveFPS || caps > DefaultLiveFPS+2 || encs != 1 {
			t.Fatalf("one still second: %d screenshots, %d encodings; want about %d and 1", caps, encs, DefaultLiveFPS)
		}
		select {
		case f := <-a.frames:
			t.Fatalf("an unchanged screen sent another picture (seq %d)", f.seq)
		default:
		}
		if _, err := ph.Press(context.Background(), phone.Lock); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		for name, v := range map[string]*viewer{"a": a, "b": b} {
			select {
			case f := <-v.frames:
				if bytes.Equal(f.jpeg, first.jpeg) {
					t.Fatalf("viewer %s: the new picture equals the old", name)
				}
			default:
				t.Fatalf("viewer %s got no picture within 200 ms of a change", name)
			}
		}
		h.leave(a)
		if _, capturing := h.watching(); !capturing {
			t.Fatal("the loop stopped while a viewer still watches")
		}
		h.leave(b)
		h.leave(b) // twice is harmless
		synctest.Wait()
		if v, capturing := h.watching(); v != 0 || capturing {
			t.Fatalf("after the last viewer left: %d viewers, capturing %v", v, capturing)
		}
		caps, _ = h.stats()
		time.Sleep(time.Second)
		if now, _ := h.stats(); now != caps {
			t.Fatalf("the loop took %d screenshots after the last viewer left", now-caps)
		}
		// A new viewer starts it again, with a picture of now.
		c, err := h.join("s1")
		if err != nil {
			t.Fatal(err)
		}
		if f := <-c.frames; f == nil {
			t.Fatal("no picture after restarting")
		}
		h.leave(c)
	})
}

// A slow viewer skips pictures: its slot holds only the newest.
func TestLiveHubSlowViewerGetsNewest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ph := testSim(t)
		h := newLiveHub(PhoneScreen(ph), LiveOptions{}, slog.New(slog.DiscardHandler))
		v, err := h.join("s")
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		for _, b := range []phone.Button{phone.Lock, phone.Home} {
			if _, err := ph.Press(context.Background(), b); err != nil {
				t.Fatal(err)
			}
			time.Sleep(150 * time.Millisecond)
		}
		if len(v.frames) != 1 {
			t.Fatalf("the viewer's slot holds %d pictures, want 1", len(v.frames))
		}
		got := <-v.frames
		f, _ := ph.Screenshot(context.Background())
		if got.seq != f.Seq {
			t.Fatalf("the viewer's picture is seq %d, the newest is %d", got.seq, f.Seq)
		}
		h.leave(v)
	})
}

func TestLiveHubLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newLiveHub(PhoneScreen(testSim(t)), LiveOptions{PerSession: 2, Viewers: 3}, slog.New(slog.DiscardHandler))
		var vs []*viewer
		for _, s := range []string{"a", "a"} {
			v, err := h.join(s)
			if err != nil {
				t.Fatal(err)
			}
			vs = append(vs, v)
		}
		if _, err := h.join("a"); !errors.Is(err, errLiveSessionFull) {
			t.Fatalf("third stream of one session: %v, want errLiveSessionFull", err)
		}
		v, err := h.join("b")
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
		if _, err := h.join("c"); !errors.Is(err, errLiveBoxFull) {
			t.Fatalf("fourth stream of the box: %v, want errLiveBoxFull", err)
		}
		h.leave(vs[0])
		if v, err := h.join("c"); err != nil {
			t.Fatalf("after one left: %v", err)
		} else {
			vs[0] = v
		}
		for _, v := range vs {
			h.leave(v)
		}
	})
}

// A screenshot that fails keeps the loop running (the phone may come
// back) and sends nothing.
func TestLiveHubPhoneGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ph, err := sim.New(sim.Options{Size: image.Pt(390, 844), Clock: sim.FixedClock(time.Now())})
		if err != nil {
			t.Fatal(err)
		}
		ph.Close()
		h := newLiveHub(PhoneScreen(ph), LiveOptions{}, slog.New(slog.DiscardHandler))
		v, err := h.join("s")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		if len(v.frames) != 0 {
			t.Fatal("a closed phone sent a picture")
		}
		if caps, _ := h.stats(); caps < 5 {
			t.Fatalf("the loop gave up after %d screenshots", caps)
		}
		h.leave(v)
	})
}

func TestBudget(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := newBudget(1000, t0)
	if d := b.wait(800, t0); d != 0 {
		t.Fatalf("a full budget waits %v for 800 of 1000 bytes", d)
	}
	b.spend(800, t0)
	if d := b.wait(800, t0); d != 600*time.Millisecond {
		t.Fatalf("wait(800) with 200 left = %v, want 600ms", d)
	}
	if d := b.wait(800, t0.Add(600*time.Millisecond)); d != 0 {
		t.Fatalf("after the refill wait = %v, want 0", d)
	}
	// It holds at most one second's worth.
	if d := b.wait(1500, t0.Add(time.Hour)); d != 500*time.Millisecond {
		t.Fatalf("wait(1500) after an hour = %v, want 500ms", d)
	}
}

func TestLiveSize(t *testing.T) {
	for _, c := range []struct {
		g    phone.Geometry
		max  int
		w, h int
	}{
		{phone.Geometry{Width: 1179, Height: 2556}, 960, 393, 852}, // a third: whole 3×3 blocks
		{phone.Geometry{Width: 2556, Height: 1179}, 960, 852, 393},
		{phone.Geometry{Width: 1080, Height: 1920}, 960, 540, 960},
		{phone.Geometry{Width: 1179, Height: 2556}, 1536, 708, 1536},
		{phone.Geometry{Width: 390, Height: 844}, 960, 390, 844},
		{phone.Geometry{}, 960, 0, 0},
	} {
		if w, h := liveSize(c.g, c.max); w != c.w || h != c.h {
			t.Errorf("liveSize(%v, %d) = %d, %d; want %d, %d", c.g, c.max, w, h, c.w, c.h)
		}
	}
}

// The owner's choice of pictures per second paces a capture loop that
// starts after it; without one, the options' rate (the board's default).
func TestLiveHubOwnerRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ph := testSim(t)
		h := newLiveHub(PhoneScreen(ph), LiveOptions{FPS: 10}, slog.New(slog.DiscardHandler))
		chosen := 0
		h.chosenFPS = func() int { return chosen }
		for _, tt := range []struct{ chosen, want int }{{0, 10}, {2, 2}, {5, 5}} {
			chosen = tt.chosen
			before, _ := h.stats()
			v, err := h.join("s1")
			if err != nil {
				t.Fatal(err)
			}
			<-v.frames
			time.Sleep(3*time.Second - time.Millisecond)
			synctest.Wait()
			h.leave(v)
			synctest.Wait()
			if got, _ := h.stats(); int(got-before) != 3*tt.want {
				t.Errorf("owner's choice %d: %d screenshots in 3 s, want %d", tt.chosen, got-before, 3*tt.want)
			}
		}
	})
}
