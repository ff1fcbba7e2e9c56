package hid

import (
	"slices"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

func TestCharKey(t *testing.T) {
	tests := []struct {
		c     byte
		k     Key
		shift bool
	}{
		{'a', 0x04, false}, {'z', 0x1d, false}, {'A', 0x04, true}, {'H', 0x0b, true},
		{'1', 0x1e, false}, {'9', 0x26, false}, {'0', 0x27, false}, {' ', 0x2c, false},
		{'!', 0x1e, true}, {'@', 0x1f, true}, {'#', 0x20, true}, {'$', 0x21, true},
		{'%', 0x22, true}, {'^', 0x23, true}, {'&', 0x24, true}, {'*', 0x25, true},
		{'(', 0x26, true}, {')', 0x27, true}, {'-', 0x2d, false}, {'_', 0x2d, true},
		{'=', 0x2e, false}, {'+', 0x2e, true}, {'[', 0x2f, false}, {'{', 0x2f, true},
		{']', 0x30, false}, {'}', 0x30, true}, {'\\', 0x31, false}, {'|', 0x31, true},
		{';', 0x33, false}, {':', 0x33, true}, {'\'', 0x34, false}, {'"', 0x34, true},
		{'`', 0x35, false}, {'~', 0x35, true}, {',', 0x36, false}, {'<', 0x36, true},
		{'.', 0x37, false}, {'>', 0x37, true}, {'/', 0x38, false}, {'?', 0x38, true},
	}
	for _, tt := range tests {
		k, shift, ok := CharKey(tt.c)
		if !ok || k != tt.k || shift != tt.shift {
			t.Errorf("CharKey(%q) = %#x, %v, %v; want %#x, %v, true", tt.c, k, shift, ok, tt.k, tt.shift)
		}
	}
	// Every printable character maps to a distinct (key, shift) pair
	// inside the keyboard's usage range; nothing else maps.
	seen := map[[2]int]byte{}
	for c := range 256 {
		k, shift, ok := CharKey(byte(c))
		printable := c >= 0x20 && c <= 0x7e
		if ok != printable {
			t.Errorf("CharKey(%#x) ok = %v, want %v", c, ok, printable)
			continue
		}
		if !ok {
			continue
		}
		if k <= KeyRollOver || k > KeyMax {
			t.Errorf("CharKey(%q) = %#x outside the keyboard's usages", byte(c), k)
		}
		sk := 0
		if shift {
			sk = 1
		}
		if prev, dup := seen[[2]int{int(k), sk}]; dup {
			t.Errorf("CharKey(%q) and CharKey(%q) both give %#x shift %v", byte(c), prev, k, shift)
		}
		seen[[2]int{int(k), sk}] = byte(c)
	}
}

func TestNamedKey(t *testing.T) {
	tests := []struct {
		name string
		k    Key
		ok   bool
	}{
		{"a", 0x04, true}, {"z", 0x1d, true}, {"0", 0x27, true}, {"5", 0x22, true},
		{"enter", 0x28, true}, {"escape", 0x29, true}, {"backspace", 0x2a, true}, {"tab", 0x2b, true},
		{"space", 0x2c, true}, {"up", 0x52, true}, {"down", 0x51, true}, {"left", 0x50, true},
		{"right", 0x4f, true}, {"delete", 0x4c, true}, {"home", 0x4a, true}, {"end", 0x4d, true},
		{"pageup", 0x4b, true}, {"pagedown", 0x4e, true}, {"f1", 0x3a, true}, {"f9", 0x42, true},
		{"f10", 0x43, true}, {"f12", 0x45, true},
		{"", 0, false}, {"A", 0, false}, {"!", 0, false}, {"f0", 0, false}, {"f13", 0, false},
		{"f01", 0, false}, {"f", 0x09, true}, {"f1x", 0, false}, {"Enter", 0, false}, {"return", 0, false},
		{"f100", 0, false},
	}
	for _, tt := range tests {
		k, ok := NamedKey(tt.name)
		if k != tt.k || ok != tt.ok {
			t.Errorf("NamedKey(%q) = %#x, %v; want %#x, %v", tt.name, k, ok, tt.k, tt.ok)
		}
	}
}

// Every key name the contract lists has a key, each its own.
func TestNamedKeyCoversTheContract(t *testing.T) {
	seen := map[Key]string{}
	for _, name := range api.KeyNames() {
		k, ok := NamedKey(name)
		if !ok {
			t.Errorf("NamedKey(%q): api lists the key, the keyboard has none", name)
			continue
		}
		if prev, dup := seen[k]; dup {
			t.Errorf("NamedKey(%q) = NamedKey(%q) = %#x", name, prev, k)
		}
		seen[k] = name
	}
}

func TestPhoneModifiers(t *testing.T) {
	tests := []struct {
		m    phone.Modifier
		want Modifiers
		ok   bool
	}{
		{0, 0, true},
		{phone.Ctrl, LeftCtrl, true},
		{phone.Shift, LeftShift, true},
		{phone.Alt, LeftAlt, true},
		{phone.Cmd, LeftGUI, true},
		{phone.Cmd | phone.Shift, LeftGUI | LeftShift, true},
		{phone.Ctrl | phone.Shift | phone.Alt | phone.Cmd, LeftCtrl | LeftShift | LeftAlt | LeftGUI, true},
		{1 << 4, 0, false},
		{phone.Cmd | 1<<7, 0, false},
	}
	for _, tt := range tests {
		got, ok := PhoneModifiers(tt.m)
		if got != tt.want || ok != tt.ok {
			t.Errorf("PhoneModifiers(%#x) = %#x, %v; want %#x, %v", tt.m, got, ok, tt.want, tt.ok)
		}
	}
}

// TestTypeHi checks the keymap and encoder together against the keyboard
// descriptor: "Hi!" decodes to shift+h, i, shift+1.
func TestTypeHi(t *testing.T) {
	d := mustParse(t, KeyboardFunction())
	want := [][]uint16{{0xe1, 0x0b}, {0x0c}, {0xe1, 0x1e}}
	for i, c := range []byte("Hi!") {
		k, shift, ok := CharKey(c)
		if !ok {
			t.Fatalf("CharKey(%q) not ok", c)
		}
		var m Modifiers
		if shift {
			m = LeftShift
		}
		got, err := d.Decode(Keyboard(m, k))
		if err != nil {
			t.Fatal(err)
		}
		if p := got.Pressed(PageKeyboard); !slices.Equal(p, want[i]) {
			t.Errorf("%q decodes to %#x, want %#x", c, p, want[i])
		}
	}
}
