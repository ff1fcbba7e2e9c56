// Package remotehid encodes the input an iPhone takes over CoreDevice on
// iOS 27+: HID reports for dtuhidd's universal HID service (the main
// touchscreen and a virtual keyboard we register) and Indigo button
// events. It is pure: building and parsing messages, no I/O.
//
// The reports reach UIKit only while the same client runs a DisplayService
// media stream (see package mediastream); without one they are accepted
// and dropped.
//
// Wire facts (report layouts, surface ids, the createService shape and
// its integer widths, Indigo usages) come from go-ios's ios/hid (MIT,
// Copyright (c) 2019 danielpaulus; merged after v1.3.2), idevice's
// core_device/hid.rs (MIT) and appium-ios-remotexpc's hid-indigo service
// (Apache-2.0); golden bytes are attributed in the tests.
package remotehid

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// Services and the features their messages name.
const (
	UniversalService = "com.apple.coredevice.hid.universalhidservice"
	UniversalFeature = "com.apple.coredevice.feature.remote.universalhidservice"
	IndigoService    = "com.apple.coredevice.hid.indigo"
	ButtonFeature    = "com.apple.coredevice.feature.remote.hid.button"
)

// Surfaces (_ServiceID values).
const (
	// MainTouchscreen is the phone's own digitizer, registered statically.
	MainTouchscreen uint64 = 257
	// KeyboardRequest is the _ServiceID we ask for when registering the
	// virtual keyboard; the reply names the one the phone assigned.
	KeyboardRequest uint64 = 0x100002001
)

// Report sizes: the phone drops reports of any other size.
const (
	TouchscreenReportLen = 58
	KeyboardReportLen    = 39
)

const (
	touchscreenReportID = 0x09
	keyboardReportID    = 0x01
	keyboardBitmap      = 30 // bytes: usages 0..239
	// MaxUsage is the highest keyboard usage a report can carry.
	MaxUsage = keyboardBitmap*8 - 1
	// touchIdentity is the contact id every client sends (one finger).
	touchIdentity = 0x02
	touchDown     = 0xC0
	tsMask        = 1<<48 - 1
)

// ErrMalformed is wrapped by errors about bytes or messages that are not
// what the phone takes.
var ErrMalformed = errors.New("remotehid: malformed")

// Coord maps a screen fraction to the touchscreen's 0..65535 scale (0.5 is
// 32768 after rounding); values outside [0,1] are clamped.
func Coord(f float64) uint16 {
	if f <= 0 || math.IsNaN(f) {
		return 0
	}
	if f >= 1 {
		return 65535
	}
	return uint16(math.Round(f * 65535))
}

// Fraction is Coord's inverse.
func Fraction(c uint16) float64 { return float64(c) / 65535 }

func putTimestamp(b []byte, ts uint64) {
	ts &= tsMask
	for i := range 6 {
		b[i] = byte(ts >> (8 * i))
	}
}

func timestamp(b []byte) uint64 {
	var ts uint64
	for i := range 6 {
		ts |= uint64(b[i]) << (8 * i)
	}
	return ts
}

// Touch is one touchscreen report: a contact at X, Y (0..65535) or its
// release there.
type Touch struct {
	Down      bool
	X, Y      uint16
	Timestamp uint64 // 48-bit, monotonic: only deltas are read
}

// Touchscreen encodes t as the main touchscreen's 58-byte report: report
// id 0x09, one contact of five, state 0xC0|identity while touching and
// the identity alone on release, x and y (u16 LE), the constant 02 at
// byte 40 and a 48-bit timestamp at bytes 44..49.
func Touchscreen(t Touch) []byte {
	r := make([]byte, TouchscreenReportLen)
	r[0] = touchscreenReportID
	r[1] = 1 // contacts in this report
	r[2] = 5 // maximum contacts
	r[3] = touchIdentity
	if t.Down {
		r[3] |= touchDown
	}
	binary.LittleEndian.PutUint16(r[4:], t.X)
	binary.LittleEndian.PutUint16(r[6:], t.Y)
	r[40] = 0x02
	putTimestamp(r[44:50], t.Timestamp)
	return r
}

// ParseTouchscreen decodes a report Touchscreen wrote (the fake phone
// uses it).
func ParseTouchscreen(r []byte) (Touch, error) {
	if len(r) != TouchscreenReportLen || r[0] != touchscreenReportID || r[1] != 1 || r[2] != 5 ||
		(r[3] != touchIdentity && r[3] != touchIdentity|touchDown) || r[40] != 0x02 ||
		!zero(r[8:40]) || !zero(r[41:44]) || !zero(r[50:]) {
		return Touch{}, fmt.Errorf("%w: touchscreen report % x", ErrMalformed, r)
	}
	return Touch{Down: r[3]&touchDown == touchDown, X: binary.LittleEndian.Uint16(r[4:]), Y: binary.LittleEndian.Uint16(r[6:]), Timestamp: timestamp(r[44:50])}, nil
}

func zero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// Keyboard encodes the virtual keyboard's 39-byte report: report id 0x01,
// a bitmap of every usage held (bit u%8 of byte 1+u/8; usages above
// MaxUsage are left out) and a 48-bit timestamp at bytes 31..36. Every
// report is the whole pressed set; an empty one releases all keys.
func Keyboard(usages []uint8, ts uint64) []byte {
	r := make([]byte, KeyboardReportLen)
	r[0] = keyboardReportID
	for _, u := range usages {
		if int(u) > MaxUsage {
			continue
		}
		r[1+u/8] |= 1 << (u % 8)
	}
	putTimestamp(r[1+keyboardBitmap:], ts)
	return r
}

// ParseKeyboard returns the usages a keyboard report holds, ascending.
func ParseKeyboard(r []byte) ([]uint8, error) {
	if len(r) != KeyboardReportLen || r[0] != keyboardReportID || !zero(r[1+keyboardBitmap+6:]) {
		return nil, fmt.Errorf("%w: keyboard report % x", ErrMalformed, r)
	}
	var u []uint8
	for i := range keyboardBitmap * 8 {
		if r[1+i/8]&(1<<(i%8)) != 0 {
			u = append(u, uint8(i))
		}
	}
	return u, nil
}

func envelope(feature, messageType string, payload xpc.Dict) xpc.Dict {
	return xpc.Dict{
		{Key: "featureIdentifier", Value: feature},
		{Key: "messageType", Value: messageType},
		{Key: "payload", Value: payload},
	}
}

// Send is the universal HID message that posts report to the surface
// serviceID: fire and forget, the phone never answers.
func Send(serviceID uint64, report []byte) xpc.Dict {
	return envelope(UniversalFeature, "Request", xpc.Dict{{Key: "send", Value: xpc.Dict{
		{Key: "_0", Value: report}, {Key: "_1", Value: serviceID},
	}}})
}

// ParseSend returns the surface and report of a Send message.
func ParseSend(m xpc.Dict) (serviceID uint64, report []byte, err error) {
	if m.String("featureIdentifier") != UniversalFeature || m.String("messageType") != "Request" {
		return 0, nil, fmt.Errorf("%w: not a universal HID request", ErrMalformed)
	}
	s := m.Dict("payload").Dict("send")
	if s == nil {
		return 0, nil, fmt.Errorf("%w: no send payload", ErrMalformed)
	}
	id, ok := s.Get("_1")
	sid, isUint := id.(uint64)
	if !ok || !isUint {
		return 0, nil, fmt.Errorf("%w: surface id is %T, not uint64", ErrMalformed, id)
	}
	r, _ := s.Get("_0")
	rb, ok := r.([]byte)
	if !ok {
		return 0, nil, fmt.Errorf("%w: report is %T, not data", ErrMalformed, r)
	}
	return sid, rb, nil
}

// IsCreateService reports whether m registers a surface.
func IsCreateService(m xpc.Dict) bool {
	return m.String("featureIdentifier") == UniversalFeature && m.Dict("payload").Dict("createService") != nil
}

// keyboardDescriptor is the standard boot keyboard report descriptor
// (modifier byte, reserved byte, six key slots, five LEDs). Declaring the
// surface a keyboard is what makes the phone hide its on-screen keyboard;
// the reports we send do not follow it, and the phone takes them anyway
// (go-ios and pymobiledevice3 register the same).
var keyboardDescriptor = []byte{
	0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, // Generic Desktop, Keyboard, Application collection
	0x05, 0x07, 0x19, 0xE0, 0x29, 0xE7, 0x15, 0x00, 0x25, 0x01, 0x95, 0x08, 0x75, 0x01, 0x81, 0x02, // 8 modifier bits
	0x95, 0x01, 0x75, 0x08, 0x81, 0x01, // reserved byte
	0x05, 0x07, 0x19, 0x00, 0x29, 0xFF, 0x15, 0x00, 0x26, 0xFF, 0x00, 0x95, 0x06, 0x75, 0x08, 0x81, 0x00, // 6 keys
	0x05, 0x08, 0x19, 0x01, 0x29, 0x05, 0x15, 0x00, 0x25, 0x01, 0x95, 0x05, 0x75, 0x01, 0x91, 0x02, // 5 LEDs
	0x95, 0x01, 0x75, 0x03, 0x91, 0x01, // LED padding
	0xC0,
}

// Keyboard identity the box registers.
const (
	KeyboardProduct      = "openlolo Keyboard"
	KeyboardManufacturer = "openlolo"
	KeyboardVendorID     = 0x05AC
	KeyboardProductID    = 0x0267
)

// CreateKeyboard is the request (wanting a reply) that registers our
// virtual keyboard surface. Integer widths matter: the outer usages are
// uint64, the usage pairs and ids int64, and every value inside
// _CoreDevice_codablePropertyStorage is wrapped in its type's name.
func CreateKeyboard() xpc.Dict {
	const page, usage int64 = 1, 6 // Generic Desktop, Keyboard
	typed := func(kind string, v any) xpc.Dict { return xpc.Dict{{Key: kind, Value: v}} }
	storage := xpc.Dict{
		{Key: "DeviceUsagePairs", Value: typed("array", []any{typed("dictionary", xpc.Dict{
			{Key: "DeviceUsage", Value: typed("int", usage)},
			{Key: "DeviceUsagePage", Value: typed("int", page)},
		})})},
		{Key: "Manufacturer", Value: typed("string", KeyboardManufacturer)},
		{Key: "PrimaryUsage", Value: typed("int", usage)},
		{Key: "PrimaryUsagePage", Value: typed("int", page)},
		{Key: "Product", Value: typed("string", KeyboardProduct)},
		{Key: "ProductID", Value: typed("int", int64(KeyboardProductID))},
		{Key: "ReportDescriptor", Value: typed("data", keyboardDescriptor)},
		{Key: "Transport", Value: typed("string", "USB")},
		{Key: "UniversalControlVirtualService", Value: typed("bool", true)},
		{Key: "VendorID", Value: typed("int", int64(KeyboardVendorID))},
		{Key: "_ServiceID", Value: typed("uint", KeyboardRequest)},
	}
	return envelope(UniversalFeature, "Request", xpc.Dict{{Key: "createService", Value: xpc.Dict{{Key: "_0", Value: xpc.Dict{
		{Key: "DeviceUsagePairs", Value: []any{xpc.Dict{{Key: "DeviceUsage", Value: usage}, {Key: "DeviceUsagePage", Value: page}}}},
		{Key: "PrimaryUsage", Value: uint64(usage)},
		{Key: "PrimaryUsagePage", Value: uint64(page)},
		{Key: "Product", Value: KeyboardProduct},
		{Key: "ProductID", Value: int64(KeyboardProductID)},
		{Key: "VendorID", Value: int64(KeyboardVendorID)},
		{Key: "_CoreDevice_codablePropertyStorage", Value: storage},
		{Key: "_ServiceID", Value: KeyboardRequest},
	}}}}})
}

// CreatedService reads the surface id from createService's reply. The
// reply's shape is not pinned by any capture, so it looks for a uint64
// under the names clients have seen (serviceID, _ServiceID, _0), at the
// top or under payload; with none it returns the requested id.
func CreatedService(reply xpc.Dict) (uint64, error) {
	if e := reply.Dict("error"); e != nil {
		return 0, fmt.Errorf("remotehid: createService refused: %v", e)
	}
	for _, d := range []xpc.Dict{reply, reply.Dict("payload"), reply.Dict("payload").Dict("createService")} {
		for _, k := range []string{"serviceID", "_ServiceID", "_0"} {
			if n, ok := d.Uint(k); ok {
				return n, nil
			}
		}
	}
	return KeyboardRequest, nil
}

// ButtonState is an Indigo button's state.
type ButtonState uint64

// Button states.
const (
	ButtonDown   ButtonState = 1
	ButtonUp     ButtonState = 2
	ButtonCancel ButtonState = 3
)

// Usage is a HID usage: page and code.
type Usage struct{ Page, Code uint64 }

// Indigo buttons (consumer page).
var (
	HomeButton       = Usage{0x0C, 0x40}
	LockButton       = Usage{0x0C, 0x30}
	VolumeUpButton   = Usage{0x0C, 0xE9}
	VolumeDownButton = Usage{0x0C, 0xEA}
	MuteButton       = Usage{0x0C, 0xE2}
)

// Button is the one-way Indigo message for a button's state change; all
// three fields are uint64.
func Button(u Usage, s ButtonState) xpc.Dict {
	return envelope(ButtonFeature, "IndigoButtonEvent", xpc.Dict{
		{Key: "state", Value: uint64(s)},
		{Key: "usagePage", Value: u.Page},
		{Key: "usageCode", Value: u.Code},
	})
}

// ButtonEvent is a parsed Button message.
type ButtonEvent struct {
	Usage Usage
	State ButtonState
}

// ParseButton decodes a Button message.
func ParseButton(m xpc.Dict) (ButtonEvent, error) {
	if m.String("featureIdentifier") != ButtonFeature || m.String("messageType") != "IndigoButtonEvent" {
		return ButtonEvent{}, fmt.Errorf("%w: not an Indigo button event", ErrMalformed)
	}
	p := m.Dict("payload")
	var ev ButtonEvent
	for _, f := range []struct {
		k string
		v *uint64
	}{{"state", (*uint64)(&ev.State)}, {"usagePage", &ev.Usage.Page}, {"usageCode", &ev.Usage.Code}} {
		v, _ := p.Get(f.k)
		n, ok := v.(uint64)
		if !ok {
			return ButtonEvent{}, fmt.Errorf("%w: button %s is %T, not uint64", ErrMalformed, f.k, v)
		}
		*f.v = n
	}
	return ev, nil
}
