package remotehid

import (
	"encoding/hex"
	"errors"
	"slices"
	"testing"

	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// goldenTS is go-ios's goldenTimestamp: distinct bytes, so a misplaced or
// mis-sized timestamp shows.
const goldenTS = 0x123456789ABC

// The expected bytes are go-ios's ios/hid/report_test.go vectors
// (https://github.com/danielpaulus/go-ios, MIT, Copyright (c) 2019
// danielpaulus), which that file says were produced by the reference
// implementation the phone is known to accept.
func TestTouchscreenGolden(t *testing.T) {
	for _, tc := range []struct {
		t    Touch
		want string
	}{
		{Touch{Down: true, X: 500, Y: 1000, Timestamp: goldenTS},
			"090105c2f401e803000000000000000000000000000000000000000000000000" + "000000000000000002000000bc9a785634120000000000000000"},
		{Touch{Down: false, X: 500, Y: 1000, Timestamp: goldenTS},
			"09010502f401e803000000000000000000000000000000000000000000000000" + "000000000000000002000000bc9a785634120000000000000000"},
	} {
		got := Touchscreen(tc.t)
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("Touchscreen(%+v)\n got %x\nwant %s", tc.t, got, tc.want)
		}
		back, err := ParseTouchscreen(got)
		if err != nil || back != tc.t {
			t.Errorf("ParseTouchscreen = %+v, %v; want %+v", back, err, tc.t)
		}
	}
}

func TestKeyboardGolden(t *testing.T) {
	const zero = "000000000000000000000000000000000000000000000000000000000000"
	for _, tc := range []struct {
		usages []uint8
		want   string
		held   []uint8
	}{
		{nil, "01" + zero + "bc9a785634120000", nil},
		{[]uint8{0x04}, "01" + "10" + zero[2:] + "bc9a785634120000", []uint8{0x04}},
		// Left shift 0xE1 is bit 1 of bitmap byte 28.
		{[]uint8{0x04, 0xE1}, "01" + "100000000000000000000000000000000000000000000000000000000200" + "bc9a785634120000", []uint8{0x04, 0xE1}},
		{[]uint8{239}, "01" + "000000000000000000000000000000000000000000000000000000000080" + "bc9a785634120000", []uint8{239}},
		{[]uint8{240, 255}, "01" + zero + "bc9a785634120000", nil},
	} {
		got := Keyboard(tc.usages, goldenTS)
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("Keyboard(%v)\n got %x\nwant %s", tc.usages, got, tc.want)
		}
		held, err := ParseKeyboard(got)
		if err != nil || !slices.Equal(held, tc.held) {
			t.Errorf("ParseKeyboard(Keyboard(%v)) = %v, %v", tc.usages, held, err)
		}
	}
}

// TestParseStrict: the fake phone refuses reports a phone would not take
// (a state with only the in-range bit, stray bytes in reserved fields);
// the fuzz target found the first.
func TestParseStrict(t *testing.T) {
	r := Touchscreen(Touch{Down: true, X: 1, Y: 2})
	r[3] = 0x42
	if _, err := ParseTouchscreen(r); !errors.Is(err, ErrMalformed) {
		t.Errorf("state 0x42 parsed: %v", err)
	}
	r = Touchscreen(Touch{X: 1})
	r[20] = 1
	if _, err := ParseTouchscreen(r); !errors.Is(err, ErrMalformed) {
		t.Errorf("reserved byte parsed: %v", err)
	}
	k := Keyboard(nil, 0)
	k[38] = 1
	if _, err := ParseKeyboard(k); !errors.Is(err, ErrMalformed) {
		t.Errorf("keyboard trailer parsed: %v", err)
	}
}

func TestTimestampMasked(t *testing.T) {
	r := Touchscreen(Touch{Timestamp: 0xFFFFFFFFFFFFFFFF})
	if hex.EncodeToString(r[44:52]) != "ffffffffffff0000" {
		t.Errorf("timestamp bytes % x spill past 48 bits", r[44:52])
	}
}

func TestCoord(t *testing.T) {
	for f, want := range map[float64]uint16{-1: 0, 0: 0, 0.5: 32768, 1: 65535, 2: 65535} {
		if got := Coord(f); got != want {
			t.Errorf("Coord(%g) = %d, want %d", f, got, want)
		}
	}
}

func TestMessages(t *testing.T) {
	report := Touchscreen(Touch{Down: true, X: 42, Y: 43})
	m := Send(MainTouchscreen, report)
	// Through the XPC codec: integer widths must survive.
	b, err := xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagDataPresent, Body: m}.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := xpc.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	id, r, err := ParseSend(back.Body)
	if err != nil || id != MainTouchscreen || !slices.Equal(r, report) {
		t.Errorf("ParseSend = %d, % x, %v", id, r, err)
	}
	bad := Send(MainTouchscreen, report)
	bad.Dict("payload").Dict("send")[1].Value = int64(257)
	if _, _, err := ParseSend(bad); !errors.Is(err, ErrMalformed) {
		t.Errorf("ParseSend(int64 surface) = %v, want ErrMalformed", err)
	}
	ev, err := ParseButton(Button(HomeButton, ButtonDown))
	if err != nil || ev != (ButtonEvent{HomeButton, ButtonDown}) {
		t.Errorf("ParseButton = %+v, %v", ev, err)
	}
	if _, err := ParseButton(Send(1, nil)); !errors.Is(err, ErrMalformed) {
		t.Errorf("ParseButton(send) = %v", err)
	}
	cs := CreateKeyboard()
	if !IsCreateService(cs) || IsCreateService(m) {
		t.Error("IsCreateService")
	}
	in := cs.Dict("payload").Dict("createService").Dict("_0")
	if v, _ := in.Get("PrimaryUsage"); v != uint64(6) {
		t.Errorf("PrimaryUsage = %T %v, want uint64 6", v, v)
	}
	if v, _ := in.Get("VendorID"); v != int64(0x05AC) {
		t.Errorf("VendorID = %T %v, want int64", v, v)
	}
	if got := in.Dict("_CoreDevice_codablePropertyStorage").Dict("_ServiceID"); got.String("uint") != "" || got[0].Key != "uint" {
		t.Errorf("storage _ServiceID = %v", got)
	}
	for reply, want := range map[string]uint64{"serviceID": 77, "_0": 78} {
		if id, err := CreatedService(xpc.Dict{{Key: reply, Value: want}}); err != nil || id != want {
			t.Errorf("CreatedService(%s) = %d, %v", reply, id, err)
		}
	}
	if _, err := CreatedService(xpc.Dict{{Key: "error", Value: xpc.Dict{{Key: "code", Value: int64(1)}}}}); err == nil {
		t.Error("CreatedService(error) = nil")
	}
}

// FuzzParseReports: the parsers the fake phone runs on what a client
// sends never panic, and what they accept re-encodes to the same bytes.
func FuzzParseReports(f *testing.F) {
	f.Add(Touchscreen(Touch{Down: true, X: 1, Y: 2, Timestamp: 3}))
	f.Add(Keyboard([]uint8{4, 0xE1}, 5))
	f.Fuzz(func(t *testing.T, b []byte) {
		if tc, err := ParseTouchscreen(b); err == nil {
			if got := Touchscreen(tc); !slices.Equal(got, b) {
				t.Fatalf("touch % x re-encodes as % x", b, got)
			}
		}
		if u, err := ParseKeyboard(b); err == nil {
			if got := Keyboard(u, timestamp(b[31:37])); !slices.Equal(got, b) {
				t.Fatalf("keyboard % x re-encodes as % x", b, got)
			}
		}
	})
}
