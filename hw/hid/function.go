package hid

import "fmt"

// Kind names one of the HID functions the gadget offers.
type Kind uint8

// Kinds, in the order the gadget links them (the pointer last).
const (
	KindKeyboard Kind = iota + 1
	KindConsumer
	KindTouch
	KindAbsMouse
	KindRelMouse
)

// Kinds returns every kind, in gadget order.
func Kinds() []Kind {
	return []Kind{KindKeyboard, KindConsumer, KindTouch, KindAbsMouse, KindRelMouse}
}

// String returns the function's short name ("keyboard", "touch", …).
func (k Kind) String() string {
	switch k {
	case KindKeyboard:
		return "keyboard"
	case KindConsumer:
		return "consumer"
	case KindTouch:
		return "touch"
	case KindAbsMouse:
		return "absmouse"
	case KindRelMouse:
		return "relmouse"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Function is one HID function of the gadget: what configfs needs to
// create it (subclass, protocol, report_length, report_desc).
type Function struct {
	Kind Kind
	// Name is Kind's short name, usable as a configfs instance name
	// (functions/hid.<Name>).
	Name string
	// Subclass and Protocol are the interface's bInterfaceSubClass and
	// bInterfaceProtocol: 1/1 for the boot keyboard, 1/2 for the boot
	// mouse, 0/0 otherwise.
	Subclass, Protocol uint8
	// ReportLength is the length in bytes of the longest input report,
	// report ID included: the value of the gadget's report_length, and
	// the length of every report the encoder for Kind returns.
	ReportLength int
	// Descriptor is the HID report descriptor. Each call of a
	// constructor returns a fresh copy.
	Descriptor []byte
}

// FunctionFor returns the function for k; ok is false for an unknown kind.
func FunctionFor(k Kind) (f Function, ok bool) {
	switch k {
	case KindKeyboard:
		return KeyboardFunction(), true
	case KindConsumer:
		return ConsumerFunction(), true
	case KindTouch:
		return TouchFunction(), true
	case KindAbsMouse:
		return AbsMouseFunction(), true
	case KindRelMouse:
		return RelMouseFunction(), true
	}
	return Function{}, false
}

// Report lengths in bytes of each function's input report.
const (
	KeyboardReportLen = 8
	ConsumerReportLen = 2
	TouchReportLen    = 8
	AbsMouseReportLen = 6
	RelMouseReportLen = 4
)

// TouchReportID is the report ID of the touch input report (the feature
// report with Contact Count Maximum has ID 2).
const TouchReportID = 1

// KeyboardFunction is the boot keyboard (subclass 1, protocol 1): an
// 8-byte input report of 8 modifier bits, a reserved byte and six key
// slots (usages 0x00..0x65), and a 1-byte output report for the five LEDs.
func KeyboardFunction() Function {
	return Function{
		Kind: KindKeyboard, Name: KindKeyboard.String(),
		Subclass: 1, Protocol: 1,
		ReportLength: KeyboardReportLen,
		Descriptor: []byte{
			0x05, 0x01, // Usage Page (Generic Desktop)
			0x09, 0x06, // Usage (Keyboard)
			0xa1, 0x01, // Collection (Application)
			0x05, 0x07, //   Usage Page (Keyboard/Keypad)
			0x19, 0xe0, //   Usage Minimum (Left Control)
			0x29, 0xe7, //   Usage Maximum (Right GUI)
			0x15, 0x00, //   Logical Minimum (0)
			0x25, 0x01, //   Logical Maximum (1)
			0x75, 0x01, //   Report Size (1)
			0x95, 0x08, //   Report Count (8)
			0x81, 0x02, //   Input (Data, Variable, Absolute): modifiers
			0x95, 0x01, //   Report Count (1)
			0x75, 0x08, //   Report Size (8)
			0x81, 0x03, //   Input (Constant): reserved byte
			0x95, 0x05, //   Report Count (5)
			0x75, 0x01, //   Report Size (1)
			0x05, 0x08, //   Usage Page (LEDs)
			0x19, 0x01, //   Usage Minimum (Num Lock)
			0x29, 0x05, //   Usage Maximum (Kana)
			0x91, 0x02, //   Output (Data, Variable, Absolute): LEDs
			0x95, 0x01, //   Report Count (1)
			0x75, 0x03, //   Report Size (3)
			0x91, 0x03, //   Output (Constant): LED padding
			0x95, 0x06, //   Report Count (6)
			0x75, 0x08, //   Report Size (8)
			0x15, 0x00, //   Logical Minimum (0)
			0x25, 0x65, //   Logical Maximum (101)
			0x05, 0x07, //   Usage Page (Keyboard/Keypad)
			0x19, 0x00, //   Usage Minimum (0)
			0x29, 0x65, //   Usage Maximum (101)
			0x81, 0x00, //   Input (Data, Array, Absolute): key slots
			0xc0, // End Collection
		},
	}
}

// ConsumerFunction is consumer control: a 2-byte input report holding one
// Consumer page usage (0x000..0x3FF) as an array; 0 means none pressed.
func ConsumerFunction() Function {
	return Function{
		Kind: KindConsumer, Name: KindConsumer.String(),
		ReportLength: ConsumerReportLen,
		Descriptor: []byte{
			0x05, 0x0c, // Usage Page (Consumer)
			0x09, 0x01, // Usage (Consumer Control)
			0xa1, 0x01, // Collection (Application)
			0x15, 0x00, //   Logical Minimum (0)
			0x26, 0xff, 0x03, //   Logical Maximum (1023)
			0x19, 0x00, //   Usage Minimum (0)
			0x2a, 0xff, 0x03, //   Usage Maximum (0x3FF)
			0x75, 0x10, //   Report Size (16)
			0x95, 0x01, //   Report Count (1)
			0x81, 0x00, //   Input (Data, Array, Absolute)
			0xc0, // End Collection
		},
	}
}

// TouchFunction is the Android touchscreen: a multitouch digitizer (Touch
// Screen application) with one finger (Tip Switch, In Range, Contact
// Identifier 0..15, X and Y 0..32767 over a nominal 70 × 150 mm) and the
// Contact Count, as input report 1 (8 bytes with the ID); Contact Count
// Maximum is feature report 2. This is the layout proven under QEMU on
// Debian's 6.1 kernel (image/kerneltest) with In Range and the
// physical size added: Contact Identifier makes hid-core group it as
// multitouch, hid-multitouch binds it and sets INPUT_PROP_DIRECT. f_hid
// answers the feature request with zeros, so the kernel falls back to the
// logical maximum (10) for the number of slots.
func TouchFunction() Function {
	return Function{
		Kind: KindTouch, Name: KindTouch.String(),
		ReportLength: TouchReportLen,
		Descriptor: []byte{
			0x05, 0x0d, // Usage Page (Digitizers)
			0x09, 0x04, // Usage (Touch Screen)
			0xa1, 0x01, // Collection (Application)
			0x85, TouchReportID, //   Report ID (1)
			0x09, 0x22, //   Usage (Finger)
			0xa1, 0x02, //   Collection (Logical)
			0x09, 0x42, //     Usage (Tip Switch)
			0x09, 0x32, //     Usage (In Range)
			0x15, 0x00, //     Logical Minimum (0)
			0x25, 0x01, //     Logical Maximum (1)
			0x75, 0x01, //     Report Size (1)
			0x95, 0x02, //     Report Count (2)
			0x81, 0x02, //     Input (Data, Variable, Absolute)
			0x95, 0x06, //     Report Count (6)
			0x81, 0x03, //     Input (Constant): padding
			0x09, 0x51, //     Usage (Contact Identifier)
			0x25, 0x0f, //     Logical Maximum (15)
			0x75, 0x08, //     Report Size (8)
			0x95, 0x01, //     Report Count (1)
			0x81, 0x02, //     Input (Data, Variable, Absolute)
			0x05, 0x01, //     Usage Page (Generic Desktop)
			0xa4,             //     Push
			0x26, 0xff, 0x7f, //     Logical Maximum (32767)
			0x75, 0x10, //     Report Size (16)
			0x55, 0x0e, //     Unit Exponent (-2)
			0x65, 0x11, //     Unit (centimetre)
			0x35, 0x00, //     Physical Minimum (0)
			0x46, 0xbc, 0x02, //     Physical Maximum (700 = 7.00 cm)
			0x09, 0x30, //     Usage (X)
			0x81, 0x02, //     Input (Data, Variable, Absolute)
			0x46, 0xdc, 0x05, //     Physical Maximum (1500 = 15.00 cm)
			0x09, 0x31, //     Usage (Y)
			0x81, 0x02, //     Input (Data, Variable, Absolute)
			0xb4,       //     Pop
			0xc0,       //   End Collection
			0x05, 0x0d, //   Usage Page (Digitizers)
			0x09, 0x54, //   Usage (Contact Count)
			0x25, 0x0a, //   Logical Maximum (10)
			0x75, 0x08, //   Report Size (8)
			0x95, 0x01, //   Report Count (1)
			0x81, 0x02, //   Input (Data, Variable, Absolute)
			0x85, 0x02, //   Report ID (2)
			0x09, 0x55, //   Usage (Contact Count Maximum)
			0xb1, 0x02, //   Feature (Data, Variable, Absolute)
			0xc0, // End Collection
		},
	}
}

// mouseDescriptor is a mouse's report descriptor: the Mouse application
// and Pointer collection with three buttons (and five bits of padding)
// and the X and Y usages both mice share, then rest (the axes' ranges,
// the wheel, the ends of the collections).
func mouseDescriptor(rest ...byte) []byte {
	return append([]byte{
		0x05, 0x01, // Usage Page (Generic Desktop)
		0x09, 0x02, // Usage (Mouse)
		0xa1, 0x01, // Collection (Application)
		0x09, 0x01, //   Usage (Pointer)
		0xa1, 0x00, //   Collection (Physical)
		0x05, 0x09, //     Usage Page (Button)
		0x19, 0x01, //     Usage Minimum (1)
		0x29, 0x03, //     Usage Maximum (3)
		0x15, 0x00, //     Logical Minimum (0)
		0x25, 0x01, //     Logical Maximum (1)
		0x95, 0x03, //     Report Count (3)
		0x75, 0x01, //     Report Size (1)
		0x81, 0x02, //     Input (Data, Variable, Absolute)
		0x95, 0x01, //     Report Count (1)
		0x75, 0x05, //     Report Size (5)
		0x81, 0x03, //     Input (Constant): padding
		0x05, 0x01, //     Usage Page (Generic Desktop)
		0x09, 0x30, //     Usage (X)
		0x09, 0x31, //     Usage (Y)
	}, rest...)
}

// AbsMouseFunction is the iOS pointer: an absolute mouse (Mouse
// application, Pointer physical collection) with three buttons, X and Y
// 0..32767 and a relative wheel -127..127, as a 6-byte report without a
// report ID (iOS rejects IDs on pointers in some versions).
func AbsMouseFunction() Function {
	return Function{
		Kind: KindAbsMouse, Name: KindAbsMouse.String(),
		ReportLength: AbsMouseReportLen,
		Descriptor: mouseDescriptor(
			0x16, 0x00, 0x00, //     Logical Minimum (0)
			0x26, 0xff, 0x7f, //     Logical Maximum (32767)
			0x75, 0x10, //     Report Size (16)
			0x95, 0x02, //     Report Count (2)
			0x81, 0x02, //     Input (Data, Variable, Absolute)
			0x09, 0x38, //     Usage (Wheel)
			0x15, 0x81, //     Logical Minimum (-127)
			0x25, 0x7f, //     Logical Maximum (127)
			0x75, 0x08, //     Report Size (8)
			0x95, 0x01, //     Report Count (1)
			0x81, 0x06, //     Input (Data, Variable, Relative)
			0xc0, //       End Collection
			0xc0, // End Collection
		),
	}
}

// RelMouseFunction is the boot mouse (subclass 1, protocol 2): three
// buttons and relative X, Y and wheel, each -127..127, as a 4-byte report.
func RelMouseFunction() Function {
	return Function{
		Kind: KindRelMouse, Name: KindRelMouse.String(),
		Subclass: 1, Protocol: 2,
		ReportLength: RelMouseReportLen,
		Descriptor: mouseDescriptor(
			0x09, 0x38, //     Usage (Wheel)
			0x15, 0x81, //     Logical Minimum (-127)
			0x25, 0x7f, //     Logical Maximum (127)
			0x75, 0x08, //     Report Size (8)
			0x95, 0x03, //     Report Count (3)
			0x81, 0x06, //     Input (Data, Variable, Relative)
			0xc0, //       End Collection
			0xc0, // End Collection
		),
	}
}
