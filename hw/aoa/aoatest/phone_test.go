package aoatest

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/hid"
)

func out(req uint8, value, index uint16, data []byte) (aoa.Setup, []byte) {
	return aoa.Setup{RequestType: aoa.RequestOut, Request: req, Value: value, Index: index, Length: uint16(len(data))}, data
}

// touchDesc is the box's digitizer descriptor.
var touchDesc = hid.TouchFunction().Descriptor

// registered returns a phone with device 3 registered as the digitizer.
func registered(t *testing.T) *Phone {
	t.Helper()
	p := &Phone{}
	s, d := out(aoa.RegisterHID, 3, uint16(len(touchDesc)), nil)
	if _, err := p.Handle(s, d); err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(touchDesc); off += 64 {
		end := min(off+64, len(touchDesc))
		s, d := out(aoa.SetHIDReportDesc, 3, uint16(off), touchDesc[off:end])
		if _, err := p.Handle(s, d); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func TestHandleRefuses(t *testing.T) {
	half := len(touchDesc) / 2
	for _, tc := range []struct {
		name  string
		setup func(p *Phone) // requests before the refused one
		s     aoa.Setup
		data  []byte
		want  string
	}{
		{"unknown request type", nil, aoa.Setup{RequestType: 0x21, Request: aoa.RegisterHID, Value: 1, Index: 5}, nil, "not a vendor request"},
		{"START", nil, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.Start}, nil, "accessory mode"},
		{"unknown In request", nil, aoa.Setup{RequestType: aoa.RequestIn, Request: aoa.SendHIDEvent, Length: 2}, nil, "no such device-to-host"},
		{"register with no length", nil, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.RegisterHID, Value: 1}, nil, "descriptor length in index"},
		{"data shorter than setup", nil, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.SendHIDEvent, Value: 1, Length: 8}, []byte{1}, "data stage is 1 bytes, the setup packet says 8"},
		{"unregister unknown", nil, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.UnregisterHID, Value: 9}, nil, "no HID device with id 9"},
		{"descriptor for unknown id", nil, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.SetHIDReportDesc, Value: 4, Length: 1}, []byte{0}, "no HID device with id 4"},
		{"chunk out of order", func(p *Phone) {
			p.Handle(out(aoa.RegisterHID, 3, uint16(len(touchDesc)), nil))
		}, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.SetHIDReportDesc, Value: 3, Index: 10, Length: 4}, touchDesc[10:14], "chunk offset 10, but 0 bytes arrived"},
		{"chunk past the end", func(p *Phone) {
			p.Handle(out(aoa.RegisterHID, 3, 8, nil))
		}, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.SetHIDReportDesc, Value: 3, Length: 9}, make([]byte, 9), "runs past the 8 bytes"},
		{"chunk too long", func(p *Phone) {
			p.Handle(out(aoa.RegisterHID, 3, uint16(len(touchDesc)), nil))
		}, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.SetHIDReportDesc, Value: 3, Length: 65}, touchDesc[:65], "longer than the control endpoint's 64"},
		{"descriptor complete", func(p *Phone) {
			p.Handle(out(aoa.RegisterHID, 3, 2, nil))
			p.Handle(out(aoa.SetHIDReportDesc, 3, 0, []byte{0xc0, 0xc0}))
		}, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.SetHIDReportDesc, Value: 3, Index: 2, Length: 1}, []byte{0}, "already has its whole descriptor"},
		{"bad descriptor", func(p *Phone) {
			p.Handle(out(aoa.RegisterHID, 3, 1, nil))
		}, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.SetHIDReportDesc, Value: 3, Length: 1}, []byte{0xc0}, "bad report descriptor"},
		{"event before the descriptor", func(p *Phone) {
			p.Handle(out(aoa.RegisterHID, 3, uint16(len(touchDesc)), nil))
			p.Handle(out(aoa.SetHIDReportDesc, 3, 0, touchDesc[:half]))
		}, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.SendHIDEvent, Value: 3, Length: 8}, hid.Touch(hid.TouchState{}), "takes no events yet"},
		{"event of unknown id", nil, aoa.Setup{RequestType: aoa.RequestOut, Request: aoa.SendHIDEvent, Value: 2, Length: 2}, hid.Consumer(0), "no HID device with id 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Phone{}
			if tc.setup != nil {
				tc.setup(p)
			}
			_, err := p.Handle(tc.s, tc.data)
			if !errors.Is(err, ErrStall) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Handle(%v) = %v, want a stall saying %q", tc.s, err, tc.want)
			}
			rs := p.Requests()
			if last := rs[len(rs)-1]; last.Setup != tc.s || last.Err == nil {
				t.Errorf("last request recorded as %+v", last)
			}
		})
	}
}

func TestUndecodableEventStalls(t *testing.T) {
	p := registered(t)
	_, err := p.Handle(out(aoa.SendHIDEvent, 3, 0, []byte{1, 2, 3}))
	if !errors.Is(err, ErrStall) || !strings.Contains(err.Error(), "bad report") {
		t.Errorf("short touch report: %v, want a stall", err)
	}
	if d, _ := p.Device(3); len(d.Reports) != 0 {
		t.Errorf("a refused event was recorded: %v", d.Reports)
	}
}

func TestTouchesDecode(t *testing.T) {
	p := registered(t)
	sent := []hid.TouchState{{Contact: true, X: 100, Y: 32767}, {Contact: true, ID: 2, X: 16384, Y: 0}, {X: 16384}}
	for _, s := range sent {
		if _, err := p.Handle(out(aoa.SendHIDEvent, 3, 0, hid.Touch(s))); err != nil {
			t.Fatal(err)
		}
	}
	got, err := p.Touches(3)
	if err != nil {
		t.Fatal(err)
	}
	want := []Touch{{Contact: true, X: 100, Y: 32767}, {Contact: true, ID: 2, X: 16384}, {X: 16384}}
	if !slices.Equal(got, want) {
		t.Errorf("Touches = %v, want %v", got, want)
	}
	if pt := got[1].Point(); pt.X < 0.5 || pt.X > 0.50002 || pt.Y != 0 {
		t.Errorf("Point() = %v, want (0.5, 0)", pt)
	}
	if _, err := p.Touches(7); err == nil {
		t.Error("Touches of an unknown id did not fail")
	}
}

func TestTouchesOfKeyboardFails(t *testing.T) {
	p := &Phone{}
	kb := hid.KeyboardFunction().Descriptor
	p.Handle(out(aoa.RegisterHID, 1, uint16(len(kb)), nil))
	p.Handle(out(aoa.SetHIDReportDesc, 1, 0, kb))
	if _, err := p.Handle(out(aoa.SendHIDEvent, 1, 0, hid.Keyboard(hid.LeftShift, hid.KeyA))); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Touches(1); err == nil || !strings.Contains(err.Error(), "not a touch") {
		t.Errorf("Touches(keyboard) = %v, want not a touch", err)
	}
	keys, err := p.Pressed(1, hid.PageKeyboard)
	if err != nil || len(keys) != 1 || !slices.Equal(keys[0], []uint16{0xe1, 0x04}) {
		t.Errorf("Pressed = %x, %v, want [[e1 4]]", keys, err)
	}
}

func TestReRegisterReplaces(t *testing.T) {
	p := registered(t)
	p.Handle(out(aoa.SendHIDEvent, 3, 0, hid.Touch(hid.TouchState{})))
	if _, err := p.Handle(out(aoa.RegisterHID, 3, 5, nil)); err != nil {
		t.Fatal(err)
	}
	d, _ := p.Device(3)
	if d.Length != 5 || len(d.Descriptor) != 0 || len(d.Reports) != 0 || d.Complete() {
		t.Errorf("after re-registering: %+v, want a fresh device of 5 bytes", d)
	}
}

func TestControl(t *testing.T) {
	p := &Phone{Protocol: 3}
	buf := make([]byte, 2)
	n, err := p.Control(t.Context(), aoa.RequestIn, aoa.GetProtocol, 0, 0, buf)
	if err != nil || n != 2 || !bytes.Equal(buf, []byte{3, 0}) {
		t.Errorf("GET_PROTOCOL = %d % x %v, want 2 [03 00]", n, buf, err)
	}
	n, err = p.Control(t.Context(), aoa.RequestOut, aoa.RegisterHID, 1, 4, nil)
	if err != nil || n != 0 {
		t.Errorf("REGISTER_HID = %d, %v", n, err)
	}
	n, err = p.Control(t.Context(), aoa.RequestOut, aoa.SetHIDReportDesc, 1, 0, []byte{1, 2})
	if err != nil || n != 2 {
		t.Errorf("SET_HID_REPORT_DESC = %d, %v, want 2 bytes moved", n, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Control(ctx, aoa.RequestIn, aoa.GetProtocol, 0, 0, buf); !errors.Is(err, context.Canceled) {
		t.Errorf("Control(cancelled) = %v", err)
	}
	if p.Transfers() != 3 {
		t.Errorf("Transfers = %d, want 3 (a cancelled transfer never reaches the phone)", p.Transfers())
	}
	injected := errors.New("babble")
	p.Fail = func(s aoa.Setup) error { return injected }
	if _, err := p.Control(t.Context(), aoa.RequestOut, aoa.UnregisterHID, 1, 0, nil); !errors.Is(err, injected) {
		t.Errorf("Control with Fail = %v, want the injected error", err)
	}
	if _, ok := p.Device(1); !ok {
		t.Error("a failed UNREGISTER_HID removed the device")
	}
}

// TestHandleSetupPacket answers requests given as the 8 wire bytes a
// FunctionFS ep0 read delivers.
func TestHandleSetupPacket(t *testing.T) {
	p := &Phone{}
	s, err := aoa.ParseSetup([]byte{0xc0, 51, 0, 0, 0, 0, 2, 0})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := p.Handle(s, nil)
	if err != nil || !bytes.Equal(reply, []byte{2, 0}) {
		t.Errorf("GET_PROTOCOL from wire bytes = % x, %v, want 02 00", reply, err)
	}
	s.Length = 1
	if reply, _ := p.Handle(s, nil); len(reply) != 1 {
		t.Errorf("a 1-byte GET_PROTOCOL got %d bytes back", len(reply))
	}
}
