package input

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

const kb = hid.KindKeyboard

// keyTap is the expected writes of one key tap at ms with hold.
func keyTap(ms, hold float64, m hid.Modifiers, k hid.Key) []rec {
	var rs []rec
	if m != 0 {
		rs = append(rs, want(kb, ms, hid.Keyboard(m)))
	}
	rs = append(rs, want(kb, ms, hid.Keyboard(m, k)))
	up := hid.Keyboard(0)
	return append(rs, want(kb, ms+hold, up), want(kb, ms+hold+15, up), want(kb, ms+hold+30, up))
}

func TestTypeHi(t *testing.T) {
	d, r, _ := newDriver(t, IOS)
	rep, err := d.Type(context.Background(), "Hi!")
	if err != nil {
		t.Fatal(err)
	}
	var exp []rec
	exp = append(exp, keyTap(0, 50, hid.LeftShift, 0x0b)...)   // H
	exp = append(exp, keyTap(80, 50, 0, 0x0c)...)              // i
	exp = append(exp, keyTap(160, 50, hid.LeftShift, 0x1e)...) // !
	checkRecs(t, r.recs(), exp)
	if rep.Reports != len(exp) || rep.MedianInterval != 0 {
		t.Errorf("report = %+v", rep)
	}
	// What the host decodes, press by press.
	dec := decoder(t)
	var seen [][]uint16
	for _, w := range r.recs() {
		if p := dec(w).Pressed(hid.PageKeyboard); len(p) == 2 || (len(p) == 1 && p[0] != 0xe1) {
			seen = append(seen, p)
		}
	}
	wantSeen := [][]uint16{{0xe1, 0x0b}, {0x0c}, {0xe1, 0x1e}}
	if len(seen) != 3 {
		t.Fatalf("host saw presses %v, want %v", seen, wantSeen)
	}
	for i := range seen {
		if len(seen[i]) != len(wantSeen[i]) || seen[i][0] != wantSeen[i][0] {
			t.Errorf("press %d = %#x, want %#x", i, seen[i], wantSeen[i])
		}
	}
}

func TestTypeRejectsBeforeWriting(t *testing.T) {
	d, r, _ := newDriver(t, Android)
	for _, s := range []string{"héllo", "a\nb", "tab\there", "emoji 🙂", "\x7f", "ok" + string([]byte{0xff})} {
		_, err := d.Type(context.Background(), s)
		if !errors.Is(err, phone.ErrUnsupportedText) {
			t.Errorf("Type(%q) = %v, want ErrUnsupportedText", s, err)
		}
	}
	if n := len(r.recs()); n != 0 {
		t.Errorf("rejected text wrote %d reports", n)
	}
	if rep, err := d.Type(context.Background(), ""); err != nil || rep.Reports != 0 {
		t.Errorf("Type(\"\") = %+v, %v", rep, err)
	}
}

func TestKeys(t *testing.T) {
	tests := []struct {
		key  phone.Key
		want []rec
	}{
		{phone.Key{Name: "enter"}, keyTap(0, 50, 0, hid.KeyEnter)},
		{phone.Key{Name: "space", Mods: phone.Cmd}, keyTap(0, 120, hid.LeftGUI, hid.KeySpace)},
		{phone.Key{Name: "a", Mods: phone.Ctrl | phone.Shift}, keyTap(0, 120, hid.LeftCtrl|hid.LeftShift, hid.KeyA)},
		{phone.Key{Name: "f12", Mods: phone.Alt}, keyTap(0, 120, hid.LeftAlt, hid.KeyF1+11)},
	}
	for _, tt := range tests {
		d, r, _ := newDriver(t, IOS)
		if _, err := d.Key(context.Background(), tt.key); err != nil {
			t.Fatalf("Key(%+v) = %v", tt.key, err)
		}
		checkRecs(t, r.recs(), tt.want)
	}
}

func TestKeyUnsupported(t *testing.T) {
	d, r, _ := newDriver(t, IOS)
	for _, k := range []phone.Key{{Name: "Enter"}, {Name: "f13"}, {Name: ""}, {Name: "a", Mods: 1 << 5}} {
		if _, err := d.Key(context.Background(), k); !errors.Is(err, phone.ErrUnsupportedKey) {
			t.Errorf("Key(%+v) = %v, want ErrUnsupportedKey", k, err)
		}
	}
	if n := len(r.recs()); n != 0 {
		t.Errorf("unsupported keys wrote %d reports", n)
	}
}

func consumerTap(u uint16) []rec {
	up := hid.Consumer(0)
	return []rec{want(hid.KindConsumer, 0, hid.Consumer(u)),
		want(hid.KindConsumer, 100, up), want(hid.KindConsumer, 115, up), want(hid.KindConsumer, 130, up)}
}

func TestPress(t *testing.T) {
	tests := []struct {
		p    Profile
		b    phone.Button
		want []rec
	}{
		{Android, phone.Home, consumerTap(hid.ConsumerHome)},
		{Android, phone.Back, consumerTap(hid.ConsumerBack)},
		{Android, phone.AppSwitch, consumerTap(hid.ConsumerAppSwitch)},
		{Android, phone.Lock, consumerTap(hid.ConsumerPower)},
		{IOS, phone.Home, keyTap(0, 120, hid.LeftGUI, hid.KeyA+7)}, // cmd+h
		{IOSRelative, phone.Home, keyTap(0, 120, hid.LeftGUI, hid.KeyA+7)},
		{IOS, phone.Lock, consumerTap(hid.ConsumerPower)},
		{IOS, phone.VolumeUp, consumerTap(hid.ConsumerVolumeUp)},
		{IOS, phone.VolumeDown, consumerTap(hid.ConsumerVolumeDown)},
		{IOS, phone.Mute, consumerTap(hid.ConsumerMute)},
	}
	for _, tt := range tests {
		d, r, _ := newDriver(t, tt.p)
		if _, err := d.Press(context.Background(), tt.b); err != nil {
			t.Fatalf("%v Press(%s) = %v", tt.p, tt.b, err)
		}
		checkRecs(t, r.recs(), tt.want)
		if !slices.Contains(tt.p.Buttons(), tt.b) {
			t.Errorf("%v.Buttons() does not list %s, which Press accepts", tt.p, tt.b)
		}
	}
}

func TestPressUnsupported(t *testing.T) {
	for _, tt := range []struct {
		p Profile
		b phone.Button
	}{{IOS, phone.Back}, {IOS, phone.AppSwitch}, {IOSRelative, phone.Back}, {Android, "power"}, {IOS, ""}} {
		d, r, _ := newDriver(t, tt.p)
		if _, err := d.Press(context.Background(), tt.b); !errors.Is(err, phone.ErrUnsupportedButton) {
			t.Errorf("%v Press(%q) = %v, want ErrUnsupportedButton", tt.p, tt.b, err)
		}
		if n := len(r.recs()); n != 0 {
			t.Errorf("%v Press(%q) wrote %d reports", tt.p, tt.b, n)
		}
	}
}

func TestKeyWriteFailure(t *testing.T) {
	// The key press is lost (write 1 fails) and so is everything after:
	// the keyboard state must not advance to "held".
	d, r, _ := newDriver(t, Android)
	r.failFrom = 1
	_, err := d.Type(context.Background(), "ab")
	if !errors.Is(err, phone.ErrInputFailed) || !errors.Is(err, errUnplugged) {
		t.Fatalf("Type = %v, want ErrInputFailed wrapping the write error", err)
	}
	if d.held[kb] {
		t.Errorf("keyboard marked held after a failed press")
	}
	// The press lands, its first release fails; the driver releases
	// again, which succeeds, and nothing more is typed.
	d, r, _ = newDriver(t, Android)
	r.failFrom, r.failOnly = 2, true
	_, err = d.Type(context.Background(), "ab")
	if !errors.Is(err, phone.ErrInputFailed) {
		t.Fatalf("Type = %v", err)
	}
	up := hid.Keyboard(0)
	checkRecs(t, r.recs(), []rec{want(kb, 0, hid.Keyboard(0, hid.KeyA)),
		want(kb, 50, up), want(kb, 65, up), want(kb, 80, up)})
	if d.held[kb] {
		t.Errorf("keyboard still held after the releases went through")
	}
	// Press lands and every release is lost: the keyboard stays held so
	// the next ReleaseAll knows.
	d, r, _ = newDriver(t, Android)
	r.failFrom = 2
	if _, err := d.Press(context.Background(), phone.VolumeUp); !errors.Is(err, phone.ErrInputFailed) {
		t.Fatalf("Press = %v", err)
	}
	if !d.held[hid.KindConsumer] {
		t.Errorf("consumer button marked released though no release was delivered")
	}
}

func TestKeyCancel(t *testing.T) {
	d, r, _ := newDriver(t, IOS)
	ctx, cancel := context.WithCancel(context.Background())
	r.after = func(n int) {
		if n == 5 { // "a" typed and released, "b" pressed
			cancel()
		}
	}
	_, err := d.Type(ctx, "abc")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Type = %v, want context.Canceled", err)
	}
	ws := r.recs()
	if len(ws) != 8 || string(ws[4].report) != string(hid.Keyboard(0, hid.KeyA+1)) {
		t.Fatalf("writes %v, want a, releases, b, then 3 releases", ws)
	}
	for _, w := range ws[5:] {
		if string(w.report) != string(hid.Keyboard(0)) {
			t.Errorf("after cancel: %v, want a release", w)
		}
	}
}
