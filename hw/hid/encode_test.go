package hid

import (
	"math"
	"slices"
	"testing"
)

func mustParse(t testing.TB, f Function) *Descriptor {
	t.Helper()
	d, err := Parse(f.Descriptor)
	if err != nil {
		t.Fatalf("Parse(%s): %v", f.Name, err)
	}
	return d
}

func decode(t *testing.T, d *Descriptor, f Function, r []byte) Decoded {
	t.Helper()
	if len(r) != f.ReportLength {
		t.Fatalf("%s encoder returned %d bytes, ReportLength is %d", f.Name, len(r), f.ReportLength)
	}
	got, err := d.Decode(r)
	if err != nil {
		t.Fatalf("Decode(% x): %v", r, err)
	}
	return got
}

func wantValue(t *testing.T, d Decoded, page, usage uint16, want int32) {
	t.Helper()
	got, ok := d.Value(page, usage)
	if !ok || got != want {
		t.Errorf("Value(%#x, %#x) = %d, %v; want %d", page, usage, got, ok, want)
	}
}

func TestScale(t *testing.T) {
	tests := []struct {
		f    float64
		want uint16
	}{
		{0, 0}, {1, 32767}, {0.5, 16384}, {0.25, 8192}, {0.75, 24575},
		{-0.1, 0}, {1.5, 32767}, {math.NaN(), 0}, {math.Inf(1), 32767}, {math.Inf(-1), 0},
		{1.0 / 32767, 1}, {0.5 / 32767, 1}, {0.49 / 32767, 0},
	}
	for _, tt := range tests {
		if got := Scale(tt.f); got != tt.want {
			t.Errorf("Scale(%g) = %d, want %d", tt.f, got, tt.want)
		}
	}
}

func TestKeyboardRoundTrip(t *testing.T) {
	f := KeyboardFunction()
	d := mustParse(t, f)
	tests := []struct {
		mods Modifiers
		keys []Key
		want []uint16 // pressed keys, modifiers first
	}{
		{0, nil, nil},
		{LeftShift, []Key{KeyA + 7}, []uint16{0xe1, 0x0b}},
		{LeftGUI, []Key{KeySpace}, []uint16{0xe3, 0x2c}},
		{LeftCtrl | LeftAlt | RightGUI, []Key{KeyDelete}, []uint16{0xe0, 0xe2, 0xe7, 0x4c}},
		{0xff, nil, []uint16{0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7}},
		{0, []Key{KeyA, KeyNone, KeyEnter}, []uint16{0x04, 0x28}},
		{0, []Key{4, 5, 6, 7, 8, 9}, []uint16{4, 5, 6, 7, 8, 9}},
		{0, []Key{4, 5, 6, 7, 8, 9, 10}, []uint16{1, 1, 1, 1, 1, 1}}, // rollover
		{0, []Key{KeyMax}, []uint16{0x65}},
	}
	for _, tt := range tests {
		got := decode(t, d, f, Keyboard(tt.mods, tt.keys...))
		if p := got.Pressed(PageKeyboard); !slices.Equal(p, tt.want) {
			t.Errorf("Keyboard(%#x, %v) decodes to pressed %#x, want %#x", tt.mods, tt.keys, p, tt.want)
		}
	}
}

func TestConsumerRoundTrip(t *testing.T) {
	f := ConsumerFunction()
	d := mustParse(t, f)
	for _, u := range []uint16{ConsumerPower, ConsumerMute, ConsumerVolumeUp, ConsumerVolumeDown, ConsumerSearch, ConsumerHome, ConsumerBack, ConsumerAppSwitch, 1, MaxConsumer} {
		got := decode(t, d, f, Consumer(u))
		if p := got.Pressed(PageConsumer); !slices.Equal(p, []uint16{u}) {
			t.Errorf("Consumer(%#x) decodes to %#x", u, p)
		}
	}
	for _, u := range []uint16{ConsumerNone, MaxConsumer + 1, 0xffff} {
		got := decode(t, d, f, Consumer(u))
		if p := got.Pressed(PageConsumer); len(p) != 0 {
			t.Errorf("Consumer(%#x) decodes to %#x, want nothing pressed", u, p)
		}
	}
}

var coords = []uint16{0, 1, 2, 255, 256, 1000, 8192, 16383, 16384, 32766, 32767}

func TestTouchRoundTrip(t *testing.T) {
	f := TouchFunction()
	d := mustParse(t, f)
	for _, contact := range []bool{true, false} {
		for _, id := range []uint8{0, 1, 15} {
			for _, x := range coords {
				for _, y := range coords {
					ts := TouchState{Contact: contact, ID: id, X: x, Y: y}
					got := decode(t, d, f, Touch(ts))
					if got.ReportID != TouchReportID {
						t.Fatalf("Touch(%+v) decodes with report ID %d", ts, got.ReportID)
					}
					c := int32(0)
					if contact {
						c = 1
					}
					wantValue(t, got, PageDigitizer, UsageTipSwitch, c)
					wantValue(t, got, PageDigitizer, UsageInRange, c)
					wantValue(t, got, PageDigitizer, UsageContactID, int32(id))
					wantValue(t, got, PageGenericDesktop, UsageX, int32(x))
					wantValue(t, got, PageGenericDesktop, UsageY, int32(y))
					wantValue(t, got, PageDigitizer, UsageContactCount, 1)
				}
			}
		}
	}
	// Out-of-range inputs are clamped/masked, never overflow the fields.
	got := decode(t, d, f, Touch(TouchState{Contact: true, ID: 0x1f, X: 40000, Y: 65535}))
	wantValue(t, got, PageDigitizer, UsageContactID, 15)
	wantValue(t, got, PageGenericDesktop, UsageX, MaxCoord)
	wantValue(t, got, PageGenericDesktop, UsageY, MaxCoord)
}

var buttonSets = []MouseButtons{0, ButtonLeft, ButtonRight, ButtonMiddle, ButtonLeft | ButtonRight, 0xff}

func pressedButtons(b MouseButtons) []uint16 {
	var us []uint16
	for i := range 3 {
		if b&(1<<i) != 0 {
			us = append(us, uint16(i+1))
		}
	}
	return us
}

func TestAbsMouseRoundTrip(t *testing.T) {
	f := AbsMouseFunction()
	d := mustParse(t, f)
	for _, b := range buttonSets {
		for _, x := range coords {
			for _, y := range coords {
				for _, w := range []int8{0, 1, -1, 127, -127} {
					got := decode(t, d, f, AbsMouse(b, x, y, w))
					if p := got.Pressed(PageButton); !slices.Equal(p, pressedButtons(b)) {
						t.Errorf("AbsMouse(%#x) buttons decode to %v", b, p)
					}
					wantValue(t, got, PageGenericDesktop, UsageX, int32(x))
					wantValue(t, got, PageGenericDesktop, UsageY, int32(y))
					wantValue(t, got, PageGenericDesktop, UsageWheel, int32(w))
				}
			}
		}
	}
	got := decode(t, d, f, AbsMouse(0, 65535, 32768, -128))
	wantValue(t, got, PageGenericDesktop, UsageX, MaxCoord)
	wantValue(t, got, PageGenericDesktop, UsageY, MaxCoord)
	wantValue(t, got, PageGenericDesktop, UsageWheel, -MaxRel)
}

func TestRelMouseRoundTrip(t *testing.T) {
	f := RelMouseFunction()
	d := mustParse(t, f)
	steps := []int8{0, 1, -1, 2, -2, 63, -64, 126, -126, 127, -127}
	for _, b := range buttonSets {
		for _, dx := range steps {
			for _, dy := range steps {
				for _, w := range []int8{0, 5, -5} {
					got := decode(t, d, f, RelMouse(b, dx, dy, w))
					if p := got.Pressed(PageButton); !slices.Equal(p, pressedButtons(b)) {
						t.Errorf("RelMouse(%#x) buttons decode to %v", b, p)
					}
					wantValue(t, got, PageGenericDesktop, UsageX, int32(dx))
					wantValue(t, got, PageGenericDesktop, UsageY, int32(dy))
					wantValue(t, got, PageGenericDesktop, UsageWheel, int32(w))
					for _, c := range got.Controls {
						if c.Page == PageGenericDesktop && !c.Relative {
							t.Fatalf("relative mouse axis %#x decoded as absolute", c.Usage)
						}
					}
				}
			}
		}
	}
	got := decode(t, d, f, RelMouse(0, -128, -128, -128))
	wantValue(t, got, PageGenericDesktop, UsageX, -MaxRel)
	wantValue(t, got, PageGenericDesktop, UsageY, -MaxRel)
	wantValue(t, got, PageGenericDesktop, UsageWheel, -MaxRel)
}
