package hid

import (
	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// CharKey returns the key and shift state that type c on a US keyboard.
// ok is false for anything but printable ASCII (0x20..0x7e).
func CharKey(c byte) (k Key, shift bool, ok bool) {
	switch {
	case c >= 'a' && c <= 'z':
		return KeyA + Key(c-'a'), false, true
	case c >= 'A' && c <= 'Z':
		return KeyA + Key(c-'A'), true, true
	case c >= '1' && c <= '9':
		return Key1 + Key(c-'1'), false, true
	case c == '0':
		return Key0, false, true
	}
	switch c {
	case ' ':
		return KeySpace, false, true
	case '!':
		return Key1, true, true
	case '@':
		return Key1 + 1, true, true
	case '#':
		return Key1 + 2, true, true
	case '$':
		return Key1 + 3, true, true
	case '%':
		return Key1 + 4, true, true
	case '^':
		return Key1 + 5, true, true
	case '&':
		return Key1 + 6, true, true
	case '*':
		return Key1 + 7, true, true
	case '(':
		return Key1 + 8, true, true
	case ')':
		return Key0, true, true
	case '-', '_':
		return 0x2d, c == '_', true
	case '=', '+':
		return 0x2e, c == '+', true
	case '[', '{':
		return 0x2f, c == '{', true
	case ']', '}':
		return 0x30, c == '}', true
	case '\\', '|':
		return 0x31, c == '|', true
	case ';', ':':
		return 0x33, c == ':', true
	case '\'', '"':
		return 0x34, c == '"', true
	case '`', '~':
		return 0x35, c == '~', true
	case ',', '<':
		return 0x36, c == '<', true
	case '.', '>':
		return 0x37, c == '>', true
	case '/', '?':
		return 0x38, c == '?', true
	}
	return KeyNone, false, false
}

// NamedKey returns the key for one of [api.KeyNames]. Names are
// case-sensitive; ok is false for any other name.
func NamedKey(name string) (k Key, ok bool) {
	if len(name) == 1 {
		c := name[0]
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			k, _, ok = CharKey(c)
			return k, ok
		}
		return KeyNone, false
	}
	switch api.KeyName(name) {
	case api.KeyEnter:
		return KeyEnter, true
	case api.KeyEscape:
		return KeyEscape, true
	case api.KeyBackspace:
		return KeyBackspace, true
	case api.KeyTab:
		return KeyTab, true
	case api.KeySpace:
		return KeySpace, true
	case api.KeyUp:
		return KeyUp, true
	case api.KeyDown:
		return KeyDown, true
	case api.KeyLeft:
		return KeyLeft, true
	case api.KeyRight:
		return KeyRight, true
	case api.KeyDelete:
		return KeyDelete, true
	case api.KeyHome:
		return KeyHome, true
	case api.KeyEnd:
		return KeyEnd, true
	case api.KeyPageUp:
		return KeyPageUp, true
	case api.KeyPageDown:
		return KeyPageDown, true
	}
	if n, ok := fkey(name); ok {
		return KeyF1 + Key(n-1), true
	}
	return KeyNone, false
}

// fkey parses "f1".."f12" (api.FunctionKeys).
func fkey(name string) (int, bool) {
	if len(name) < 2 || len(name) > 3 || name[0] != 'f' || name[1] == '0' {
		return 0, false
	}
	n := 0
	for _, c := range name[1:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n < 1 || n > api.FunctionKeys {
		return 0, false
	}
	return n, true
}

// PhoneModifiers maps phone modifiers to the left-hand modifier keys (Cmd
// is the left GUI key). ok is false when m has bits phone does not define.
func PhoneModifiers(m phone.Modifier) (mods Modifiers, ok bool) {
	if m&^(phone.Ctrl|phone.Shift|phone.Alt|phone.Cmd) != 0 {
		return 0, false
	}
	if m&phone.Ctrl != 0 {
		mods |= LeftCtrl
	}
	if m&phone.Shift != 0 {
		mods |= LeftShift
	}
	if m&phone.Alt != 0 {
		mods |= LeftAlt
	}
	if m&phone.Cmd != 0 {
		mods |= LeftGUI
	}
	return mods, true
}
