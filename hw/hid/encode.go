package hid

import (
	"encoding/binary"
	"math"
)

// MaxCoord is the largest value of an absolute axis (the logical maximum
// of X and Y on the digitizer and the absolute mouse).
const MaxCoord = 32767

// Scale maps a fraction of the screen to the absolute axis range:
// round(f × 32767), half away from zero, clamped to [0, 32767]. NaN maps
// to 0. Scale(0) = 0, Scale(0.5) = 16384, Scale(1) = 32767.
func Scale(f float64) uint16 {
	if math.IsNaN(f) || f <= 0 {
		return 0
	}
	if f >= 1 {
		return MaxCoord
	}
	return uint16(math.Round(f * MaxCoord))
}

// Key is a usage on the Keyboard/Keypad page (0x07), the value a boot
// keyboard puts in a key slot.
type Key uint8

// Keys the box names outside the printable characters.
const (
	KeyNone      Key = 0x00
	KeyRollOver  Key = 0x01 // ErrorRollOver: more keys than slots
	KeyA         Key = 0x04
	Key1         Key = 0x1e
	Key0         Key = 0x27
	KeyEnter     Key = 0x28
	KeyEscape    Key = 0x29
	KeyBackspace Key = 0x2a
	KeyTab       Key = 0x2b
	KeySpace     Key = 0x2c
	KeyF1        Key = 0x3a
	KeyHome      Key = 0x4a
	KeyPageUp    Key = 0x4b
	KeyDelete    Key = 0x4c
	KeyEnd       Key = 0x4d
	KeyPageDown  Key = 0x4e
	KeyRight     Key = 0x4f
	KeyLeft      Key = 0x50
	KeyDown      Key = 0x51
	KeyUp        Key = 0x52
	// KeyMax is the largest usage the keyboard descriptor declares.
	KeyMax Key = 0x65
)

// Modifiers is the modifier byte of a keyboard report: one bit per usage
// 0xE0..0xE7 (Left Control … Right GUI).
type Modifiers uint8

// Modifier bits.
const (
	LeftCtrl Modifiers = 1 << iota
	LeftShift
	LeftAlt
	LeftGUI
	RightCtrl
	RightShift
	RightAlt
	RightGUI
)

// KeySlots is the number of keys a boot keyboard report carries at once.
const KeySlots = 6

// Keyboard encodes a boot keyboard report: mods, a reserved zero byte and
// up to six keys. KeyNone entries are skipped; with more than six keys every
// slot holds KeyRollOver, as the HID spec asks. Keyboard(0) is the release
// report.
func Keyboard(mods Modifiers, keys ...Key) []byte {
	r := make([]byte, KeyboardReportLen)
	r[0] = byte(mods)
	n := 0
	for _, k := range keys {
		if k == KeyNone {
			continue
		}
		if n == KeySlots {
			for i := range KeySlots {
				r[2+i] = byte(KeyRollOver)
			}
			return r
		}
		r[2+n] = byte(k)
		n++
	}
	return r
}

// Consumer encodes a consumer control report holding usage u (one of the
// Consumer… constants, at most MaxConsumer; larger values are sent as
// ConsumerNone). Consumer(ConsumerNone) is the release report.
func Consumer(u uint16) []byte {
	if u > MaxConsumer {
		u = ConsumerNone
	}
	r := make([]byte, ConsumerReportLen)
	binary.LittleEndian.PutUint16(r, u)
	return r
}

// TouchState is one finger on the touchscreen.
type TouchState struct {
	// Contact is true while the finger touches the screen (Tip Switch and
	// In Range); false is the lift report.
	Contact bool
	// ID is the contact identifier, 0..15 (larger values are masked).
	ID uint8
	// X and Y are positions in 0..MaxCoord (larger values are clamped).
	X, Y uint16
}

// Touch encodes a touchscreen input report: report ID 1, tip and in-range
// bits, contact identifier, X, Y (little-endian) and a contact count of 1
// (a lift is reported once with the tip cleared and the count still 1, as
// hid-multitouch expects).
func Touch(t TouchState) []byte {
	r := make([]byte, TouchReportLen)
	r[0] = TouchReportID
	if t.Contact {
		r[1] = 0x03
	}
	r[2] = t.ID & 0x0f
	binary.LittleEndian.PutUint16(r[3:], clampCoord(t.X))
	binary.LittleEndian.PutUint16(r[5:], clampCoord(t.Y))
	r[7] = 1
	return r
}

// MouseButtons is the button byte of a mouse report.
type MouseButtons uint8

// Mouse buttons.
const (
	ButtonLeft MouseButtons = 1 << iota
	ButtonRight
	ButtonMiddle
)

const mouseButtonMask = ButtonLeft | ButtonRight | ButtonMiddle

// AbsMouse encodes an absolute mouse report: buttons, X and Y in
// 0..MaxCoord (clamped), and a relative wheel step (-128 is sent as -127).
func AbsMouse(b MouseButtons, x, y uint16, wheel int8) []byte {
	r := make([]byte, AbsMouseReportLen)
	r[0] = byte(b & mouseButtonMask)
	binary.LittleEndian.PutUint16(r[1:], clampCoord(x))
	binary.LittleEndian.PutUint16(r[3:], clampCoord(y))
	r[5] = byte(clampRel(wheel))
	return r
}

// MaxRel is the largest step of a relative axis in one report; the
// smallest is -MaxRel.
const MaxRel = 127

// RelMouse encodes a relative mouse report: buttons and signed steps of X,
// Y and wheel (-128 is sent as -127, the descriptor's logical minimum).
func RelMouse(b MouseButtons, dx, dy, wheel int8) []byte {
	return []byte{byte(b & mouseButtonMask), byte(clampRel(dx)), byte(clampRel(dy)), byte(clampRel(wheel))}
}

func clampCoord(v uint16) uint16 { return min(v, MaxCoord) }

func clampRel(v int8) int8 { return max(v, -MaxRel) }
