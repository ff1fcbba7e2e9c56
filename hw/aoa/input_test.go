package aoa_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/aoa/aoatest"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

var (
	touchID    = aoa.ID(hid.KindTouch)
	keyboardID = aoa.ID(hid.KindKeyboard)
	consumerID = aoa.ID(hid.KindConsumer)
)

// open opens AOA input on p; call it inside a synctest bubble.
func open(t *testing.T, p *aoatest.Phone) *aoa.Input {
	t.Helper()
	in, err := aoa.Open(t.Context(), aoa.Options{Controller: p})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return in
}

// touchesSince returns the digitizer events after the first n.
func touchesSince(t *testing.T, p *aoatest.Phone, n int) []aoatest.Touch {
	t.Helper()
	ts, err := p.Touches(touchID)
	if err != nil {
		t.Fatal(err)
	}
	return ts[n:]
}

func at(x, y float64, contact bool) aoatest.Touch {
	return aoatest.Touch{Contact: contact, X: int32(hid.Scale(x)), Y: int32(hid.Scale(y))}
}

func TestOpenRegisters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &aoatest.Phone{}
		start := time.Now()
		in := open(t, p)
		if took := time.Since(start); took < aoa.DefaultSettle {
			t.Errorf("Open took %v, less than the settle %v", took, aoa.DefaultSettle)
		}
		if in.Protocol() != 2 {
			t.Errorf("Protocol() = %d, want 2", in.Protocol())
		}
		if got, want := p.IDs(), []uint16{1, 2, 3}; !slices.Equal(got, want) {
			t.Errorf("registered ids = %v, want %v", got, want)
		}
		for _, k := range aoa.Kinds() {
			d, _ := p.Device(aoa.ID(k))
			f, _ := hid.FunctionFor(k)
			if !slices.Equal(d.Descriptor, f.Descriptor) {
				t.Errorf("%s: the phone reassembled % x, want hw/hid's % x", k, d.Descriptor, f.Descriptor)
			}
		}
		for _, r := range p.Requests() {
			if r.Setup.Request == aoa.Start || r.Setup.Request == aoa.SendString {
				t.Errorf("Open sent %v: the phone must stay out of accessory mode", r.Setup)
			}
			if r.Setup.Request == aoa.SetHIDReportDesc && r.Setup.Length > aoa.DefaultChunk {
				t.Errorf("chunk of %d bytes, want at most %d", r.Setup.Length, aoa.DefaultChunk)
			}
		}
		// The first release reaches every device.
		for _, id := range []uint16{keyboardID, consumerID, touchID} {
			if d, _ := p.Device(id); len(d.Reports) != 3 {
				t.Errorf("device %d got %d reports at open, want 3 releases", id, len(d.Reports))
			}
		}
		if in.Transfers() != 0 {
			t.Errorf("Transfers() = %d right after Open, want 0", in.Transfers())
		}
	})
}

func TestOpenClearsStaleDevices(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &aoatest.Phone{}
		// A crashed box left a relative mouse and a half-registered touch.
		if _, err := p.Handle(aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.RegisterHID, Value: aoa.ID(hid.KindRelMouse), Index: 10}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Handle(aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.RegisterHID, Value: touchID, Index: 99}, nil); err != nil {
			t.Fatal(err)
		}
		open(t, p)
		if got, want := p.IDs(), []uint16{1, 2, 3}; !slices.Equal(got, want) {
			t.Errorf("registered ids = %v, want %v", got, want)
		}
		if d, _ := p.Device(touchID); !d.Complete() {
			t.Errorf("touch device is incomplete (%d of %d bytes)", len(d.Descriptor), d.Length)
		}
	})
}

func TestTapEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &aoatest.Phone{}
		in := open(t, p)
		n := len(touchesSince(t, p, 0))
		start := time.Now()
		rep, err := in.Touch(t.Context(), phone.Tap(phone.Point{X: 0.25, Y: 0.75}, phone.TapHold))
		if err != nil {
			t.Fatal(err)
		}
		want := []aoatest.Touch{at(0.25, 0.75, true), at(0.25, 0.75, false), at(0.25, 0.75, false), at(0.25, 0.75, false)}
		if got := touchesSince(t, p, n); !slices.Equal(got, want) {
			t.Errorf("the phone saw %v, want %v", got, want)
		}
		if rep.Reports != 4 || in.Transfers() != 4 {
			t.Errorf("Reports = %d, Transfers = %d, want 4 and 4", rep.Reports, in.Transfers())
		}
		if took := time.Since(start); took < phone.TapHold {
			t.Errorf("the tap took %v, shorter than its hold %v", took, phone.TapHold)
		}
	})
}

func TestSwipeEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &aoatest.Phone{}
		in := open(t, p)
		n := len(touchesSince(t, p, 0))
		from, to := phone.Point{X: 0.5, Y: 0.9}, phone.Point{X: 0.2, Y: 0.1}
		g := phone.Swipe(from, to, phone.SwipeDwell, 300*time.Millisecond, 0, phone.SwipeRate)
		rep, err := in.Touch(t.Context(), g)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Skipped != 0 {
			t.Errorf("Skipped = %d on an instant phone", rep.Skipped)
		}
		var want []aoatest.Touch
		for i, s := range g.Steps {
			w := at(s.X, s.Y, true)
			if i > 0 && w == want[len(want)-1] {
				continue // the dwell point: no movement, no report
			}
			want = append(want, w)
		}
		for range phone.Releases {
			want = append(want, at(to.X, to.Y, false))
		}
		if got := touchesSince(t, p, n); !slices.Equal(got, want) {
			t.Errorf("the phone saw\n%v\nwant\n%v", got, want)
		}
		if got := touchesSince(t, p, n)[0].Point(); got.X < 0.4999 || got.X > 0.5001 || got.Y < 0.8999 || got.Y > 0.9001 {
			t.Errorf("contact at %v, want %v", got, from)
		}
	})
}

func TestKeysAndButtons(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &aoatest.Phone{}
		in := open(t, p)
		if _, err := in.Type(t.Context(), "aB"); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Press(t.Context(), phone.Back); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Press(t.Context(), phone.Home); err != nil {
			t.Fatal(err)
		}
		keys, err := p.Pressed(keyboardID, hid.PageKeyboard)
		if err != nil {
			t.Fatal(err)
		}
		var down [][]uint16
		for _, k := range keys[3:] { // after Open's releases
			if len(k) > 0 {
				down = append(down, k)
			}
		}
		const shift = 0xe1
		want := [][]uint16{{0x04}, {shift}, {shift, 0x05}}
		if !slices.EqualFunc(down, want, slices.Equal) {
			t.Errorf("keys down = %x, want %x", down, want)
		}
		buttons, err := p.Pressed(consumerID, hid.PageConsumer)
		if err != nil {
			t.Fatal(err)
		}
		var pressed []uint16
		for _, b := range buttons[3:] {
			pressed = append(pressed, b...)
		}
		if want := []uint16{hid.ConsumerBack, hid.ConsumerHome}; !slices.Equal(pressed, want) {
			t.Errorf("buttons down = %#x, want %#x", pressed, want)
		}
		if _, err := in.Type(t.Context(), "é"); !errors.Is(err, phone.ErrUnsupportedText) {
			t.Errorf("Type(é) = %v, want ErrUnsupportedText", err)
		}
	})
}

func TestProtocolOneRefused(t *testing.T) {
	for _, p := range []*aoatest.Phone{{Protocol: 1}, {NoAOA: true}} {
		_, err := aoa.Open(t.Context(), aoa.Options{Controller: p})
		if !errors.Is(err, aoa.ErrUnsupported) {
			t.Errorf("Open(protocol %d, no AOA %v) = %v, want ErrUnsupported", p.Protocol, p.NoAOA, err)
		}
		if got := p.Requests(); len(got) != 1 || got[0].Setup.Request != aoa.GetProtocol {
			t.Errorf("requests after a refusal: %v, want GET_PROTOCOL alone", got)
		}
	}
}

var errUnplugged = errors.New("usb: device gone")

func TestOpenFailureCleansUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &aoatest.Phone{Fail: func(s aoa.Setup) error {
			if s.Request == aoa.SetHIDReportDesc && s.Value == touchID && s.Index == 64 {
				return errUnplugged
			}
			return nil
		}}
		_, err := aoa.Open(t.Context(), aoa.Options{Controller: p})
		if !errors.Is(err, errUnplugged) {
			t.Fatalf("Open = %v, want the transfer's error", err)
		}
		if want := "aoa: open: register touch (id 3): descriptor bytes 64.."; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %q does not start with %q", err, want)
		}
		if ids := p.IDs(); len(ids) != 0 {
			t.Errorf("ids %v stay registered after a failed open", ids)
		}
	})
}

func TestChunkTooLongForPhone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &aoatest.Phone{MaxChunk: 32}
		_, err := aoa.Open(t.Context(), aoa.Options{Controller: p})
		if !errors.Is(err, aoatest.ErrStall) || !strings.Contains(err.Error(), "longer than the control endpoint's 32") {
			t.Errorf("Open(chunk 64, phone takes 32) = %v, want a stall naming the size", err)
		}
		p = &aoatest.Phone{MaxChunk: 16}
		if _, err := aoa.Open(t.Context(), aoa.Options{Controller: p, Chunk: 16}); err != nil {
			t.Errorf("Open(chunk 16) = %v", err)
		}
		if _, err := aoa.Open(t.Context(), aoa.Options{Controller: p, Chunk: -1}); err == nil {
			t.Error("Open(chunk -1) did not fail")
		}
		if _, err := aoa.Open(t.Context(), aoa.Options{}); err == nil {
			t.Error("Open(no controller) did not fail")
		}
	})
}

func TestCancel(t *testing.T) {
	t.Run("open", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			p := &aoatest.Phone{Fail: func(s aoa.Setup) error {
				if s.Request == aoa.SetHIDReportDesc {
					cancel()
				}
				return nil
			}}
			_, err := aoa.Open(ctx, aoa.Options{Controller: p})
			if !errors.Is(err, context.Canceled) || errors.Is(err, aoa.ErrUnsupported) {
				t.Errorf("Open = %v, want context.Canceled", err)
			}
			if ids := p.IDs(); len(ids) != 0 {
				t.Errorf("ids %v stay registered after a cancelled open", ids)
			}
		})
	})
	t.Run("clearing stale devices", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		p := &aoatest.Phone{Fail: func(s aoa.Setup) error {
			if s.Request == aoa.UnregisterHID {
				cancel()
				return context.Canceled
			}
			return nil
		}}
		_, err := aoa.Open(ctx, aoa.Options{Controller: p})
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "clear keyboard (id 1)") {
			t.Errorf("Open = %v, want context.Canceled while clearing the keyboard", err)
		}
	})
	t.Run("settle", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), aoa.DefaultSettle/2)
			defer cancel()
			p := &aoatest.Phone{}
			_, err := aoa.Open(ctx, aoa.Options{Controller: p})
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "settle after registering") {
				t.Errorf("Open = %v, want the deadline during the settle", err)
			}
			if ids := p.IDs(); len(ids) != 0 {
				t.Errorf("ids %v stay registered after a cancelled open", ids)
			}
		})
	})
	t.Run("swipe", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := &aoatest.Phone{}
			in := open(t, p)
			n := len(touchesSince(t, p, 0))
			ctx, cancel := context.WithCancel(t.Context())
			go func() {
				time.Sleep(phone.SwipeDwell + 100*time.Millisecond)
				cancel()
			}()
			g := phone.Swipe(phone.Point{X: 0.5, Y: 0.9}, phone.Point{X: 0.5, Y: 0.1}, phone.SwipeDwell, time.Second, 0, phone.SwipeRate)
			_, err := in.Touch(ctx, g)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Touch = %v, want context.Canceled", err)
			}
			got := touchesSince(t, p, n)
			if len(got) >= len(g.Steps) {
				t.Errorf("%d events: the swipe ran on after the cancel", len(got))
			}
			if last := got[len(got)-1]; last.Contact {
				t.Errorf("last event %v holds the finger down after a cancel", last)
			}
		})
	})
}

func TestSendFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var unplugged bool
		p := &aoatest.Phone{Fail: func(s aoa.Setup) error {
			if unplugged && s.Request == aoa.SendHIDEvent {
				return errUnplugged
			}
			return nil
		}}
		in := open(t, p)
		unplugged = true
		_, err := in.Touch(t.Context(), phone.Tap(phone.Point{X: 0.5, Y: 0.5}, phone.TapHold))
		if !errors.Is(err, phone.ErrInputFailed) || !errors.Is(err, errUnplugged) {
			t.Errorf("Touch = %v, want ErrInputFailed and the transfer's error", err)
		}
		if !strings.Contains(err.Error(), "aoa: send touch report (id 3): SEND_HID_EVENT") {
			t.Errorf("error %q does not say what failed", err)
		}
	})
}

func TestClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &aoatest.Phone{}
		in := open(t, p)
		if err := in.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if ids := p.IDs(); len(ids) != 0 {
			t.Errorf("ids %v stay registered after Close", ids)
		}
		if err := in.Close(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("second Close = %v, want net.ErrClosed", err)
		}
		before := p.Transfers()
		_, err := in.Touch(t.Context(), phone.Tap(phone.Point{X: 0.5, Y: 0.5}, phone.TapHold))
		if !errors.Is(err, net.ErrClosed) || !errors.Is(err, phone.ErrInputFailed) {
			t.Errorf("Touch after Close = %v, want net.ErrClosed and ErrInputFailed", err)
		}
		if p.Transfers() != before {
			t.Errorf("%d transfers after Close", p.Transfers()-before)
		}
	})
}

func TestCloseReportsFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var gone bool
		p := &aoatest.Phone{Fail: func(s aoa.Setup) error {
			if gone {
				return errUnplugged
			}
			return nil
		}}
		in := open(t, p)
		gone = true
		err := in.Close()
		if !errors.Is(err, errUnplugged) || !strings.Contains(err.Error(), "unregister touch (id 3)") {
			t.Errorf("Close on a gone phone = %v, want the unregister failures", err)
		}
	})
}
