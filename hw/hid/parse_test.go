package hid

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		desc []byte
		want string // part of the message
	}{
		{"empty", nil, "empty"},
		{"truncated item", []byte{0x05, 0x01, 0x26, 0xff}, "truncated item 0x26 at byte 2: it needs 2 data bytes, 1 are left"},
		{"truncated 4-byte item", []byte{0x07, 0x01, 0x00}, "truncated item 0x07 at byte 0"},
		{"truncated long item header", []byte{0xfe, 0x05}, "truncated long item at byte 0"},
		{"truncated long item data", []byte{0xfe, 0x05, 0x10, 0x01}, "needs 5 data bytes, 1 are left"},
		{"end without collection", []byte{0x05, 0x01, 0xc0}, "End Collection without an open Collection"},
		{"collection not closed", []byte{0x05, 0x01, 0x09, 0x02, 0xa1, 0x01, 0xa1, 0x00, 0xc0}, "1 collection(s) not closed"},
		{"pop without push", []byte{0x05, 0x01, 0xb4}, "Pop without a matching Push"},
		{"reserved type", []byte{0x0c}, "reserved item type"},
		{"unknown main tag", []byte{0xd0}, "unknown Main item tag"},
		{"unknown global tag", []byte{0xc4, 0x00}, "unknown Global item tag"},
		{"report id zero", []byte{0x85, 0x00}, "Report ID 0 is outside 1..255"},
		{"report id too big", []byte{0x86, 0x00, 0x01}, "Report ID 256"},
		{"usage page too big", []byte{0x07, 0x00, 0x00, 0x01, 0x00}, "does not fit 16 bits"},
		{"report count too big", []byte{0x96, 0x01, 0x10}, "Report Count 4097"},
		{"report too long", []byte{0x75, 0x08, 0x96, 0x00, 0x10, 0x81, 0x03, 0x81, 0x03}, "more than 4096 bytes"},
		{"data field over 32 bits", []byte{0x75, 0x21, 0x95, 0x01, 0x81, 0x02}, "at most 32 bits"},
		{"logical min above max", []byte{0x15, 0x05, 0x25, 0x01, 0x75, 0x08, 0x95, 0x01, 0x81, 0x02}, "Logical Minimum 5 is greater than Logical Maximum 1"},
		{"usage max without min", []byte{0x29, 0x05}, "Usage Maximum 0x5 without a Usage Minimum"},
		{"usage min without max", []byte{0x19, 0x01, 0x75, 0x01, 0x95, 0x01, 0x81, 0x02}, "Usage Minimum 0x1 without a Usage Maximum"},
		{"usage range reversed", []byte{0x19, 0x05, 0x29, 0x01}, "below Usage Minimum"},
		{"usage range too large", []byte{0x19, 0x00, 0x2a, 0xff, 0xff}, "more than 4096 usages"},
		{"usage range across pages", []byte{0x1b, 0x01, 0x00, 0x07, 0x00, 0x2b, 0x05, 0x00, 0x08, 0x00}, "different pages"},
		{"main item before report id", []byte{0x75, 0x08, 0x95, 0x01, 0x81, 0x03, 0x85, 0x01, 0x81, 0x03}, "before the first Report ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse(tt.desc)
			if err == nil {
				t.Fatalf("Parse(% x) = %+v, nil; want an error containing %q", tt.desc, d, tt.want)
			}
			if !errors.Is(err, ErrDescriptor) {
				t.Errorf("Parse(% x) error %v does not wrap ErrDescriptor", tt.desc, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(% x) = %q, want it to contain %q", tt.desc, err, tt.want)
			}
		})
	}
}

func TestParseDeepNesting(t *testing.T) {
	var desc []byte
	for range maxDepth + 1 {
		desc = append(desc, 0xa1, 0x00)
	}
	if _, err := Parse(desc); err == nil || !strings.Contains(err.Error(), "nest deeper") {
		t.Errorf("Parse(%d nested collections) = %v, want a nesting error", maxDepth+1, err)
	}
	desc = nil
	for range maxDepth + 1 {
		desc = append(desc, 0xa4)
	}
	if _, err := Parse(desc); err == nil || !strings.Contains(err.Error(), "Push nests deeper") {
		t.Errorf("Parse(%d Push) = %v, want a nesting error", maxDepth+1, err)
	}
}

func TestParseItems(t *testing.T) {
	desc := []byte{
		0x05, 0x01, // Usage Page (Generic Desktop)
		0x09, 0x02, // Usage (Mouse)
		0xa1, 0x01, // Collection (Application)
		0x85, 0x03, //   Report ID 3
		0x0b, 0x38, 0x02, 0x0c, 0x00, //   Usage (extended Consumer AC Pan 0x0c0238)
		0x09, 0x30, //   Usage (X), completed with the page in effect
		0x16, 0x00, 0x80, //   Logical Minimum (-32768)
		0x26, 0xff, 0x7f, //   Logical Maximum (32767)
		0x75, 0x10, 0x95, 0x02, // 2 × 16 bits
		0x81, 0x06, //   Input (Data, Variable, Relative)
		0xa4,       //   Push
		0x15, 0x00, //   Logical Minimum (0)
		0x25, 0xff, //   Logical Maximum (255: unsigned because the minimum is not negative)
		0x75, 0x08, 0x95, 0x01,
		0x55, 0x0f, //   Unit Exponent (-1)
		0x66, 0x01, 0x10, // Unit (0x1001)
		0x05, 0x09, 0x09, 0x01, // Button 1
		0x91, 0x02, //   Output (Data, Variable, Absolute)
		0xb4,                               //   Pop: size 16, count 2, logical ±32767 again
		0x05, 0x07, 0x19, 0x04, 0x29, 0x06, // Keyboard a..c
		0x15, 0x04, 0x25, 0x06, 0x95, 0x01,
		0x81, 0x00, //   Input (Data, Array)
		0xfe, 0x02, 0x10, 0xaa, 0xbb, //   a long item, skipped
		0x09, 0x01, // a designator/string/delimiter item would be ignored
		0x39, 0x00, //   Designator Index (ignored)
		0xb1, 0x03, //   Feature (Constant)
		0xc0,
	}
	d, err := Parse(desc)
	if err != nil {
		t.Fatal(err)
	}
	if !d.UsesReportIDs || len(d.Fields) != 4 {
		t.Fatalf("UsesReportIDs %v, %d fields; want true, 4", d.UsesReportIDs, len(d.Fields))
	}
	f := d.Fields[0]
	if !slices.Equal(f.Usages, []uint32{0x000c0238, 0x00010030}) {
		t.Errorf("usages %#x, want extended 0xc0238 then 0x10030", f.Usages)
	}
	if f.LogicalMin != -32768 || f.LogicalMax != 32767 || !f.Relative() || !f.Variable() || f.Application != 0x00010002 || f.ReportID != 3 {
		t.Errorf("field 0 = %+v", f)
	}
	o := d.Fields[1]
	if o.Type != Output || o.LogicalMax != 255 || o.UnitExponent != -1 || o.Unit != 0x1001 || o.BitOffset != 0 || o.Size != 8 {
		t.Errorf("output field = %+v; want unsigned max 255, exponent -1, unit 0x1001", o)
	}
	a := d.Fields[2]
	if a.Size != 16 || a.BitOffset != 32 || a.Variable() || !slices.Equal(a.Usages, []uint32{0x70004, 0x70005, 0x70006}) {
		t.Errorf("array field = %+v; want 16 bits at offset 32 after Pop, usages a..c", a)
	}
	if n, ok := d.ReportLength(Input, 3); !ok || n != 7 {
		t.Errorf("input report 3 length = %d, %v; want 7 (ID + 6)", n, ok)
	}
	if n, ok := d.ReportLength(Output, 3); !ok || n != 2 {
		t.Errorf("output report 3 length = %d, %v; want 2", n, ok)
	}
	if _, ok := d.ReportLength(Input, 4); ok {
		t.Errorf("input report 4 exists, want none")
	}

	// Decode: X = -2, Y = 300, array slot = 5 (key b).
	got, err := d.Decode([]byte{3, 0xfe, 0xff, 0x2c, 0x01, 0x05, 0x00})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Value(0x0c, 0x238); !ok || v != -2 {
		t.Errorf("AC Pan = %d, %v; want -2", v, ok)
	}
	if v, ok := got.Value(0x01, 0x30); !ok || v != 300 {
		t.Errorf("X = %d, %v; want 300", v, ok)
	}
	if p := got.Pressed(PageKeyboard); !slices.Equal(p, []uint16{0x05}) {
		t.Errorf("pressed %#x, want [0x5]", p)
	}
	// Out-of-range array value: nothing pressed.
	got, err = d.Decode([]byte{3, 0, 0, 0, 0, 0x09, 0x00})
	if err != nil {
		t.Fatal(err)
	}
	if p := got.Pressed(PageKeyboard); len(p) != 0 {
		t.Errorf("out-of-range array value pressed %#x", p)
	}
	if _, ok := got.Value(0x07, 0x04); ok {
		t.Errorf("Value found a usage that only an array names")
	}
}

func TestUnitExponentByte(t *testing.T) {
	// A full signed byte (0xfe = -2), as some descriptors write it.
	d, err := Parse([]byte{0x55, 0xfe, 0x75, 0x08, 0x95, 0x01, 0x09, 0x30, 0x81, 0x02})
	if err != nil {
		t.Fatal(err)
	}
	if e := d.Fields[0].UnitExponent; e != -2 {
		t.Errorf("UnitExponent = %d, want -2", e)
	}
}

func TestDecodeErrors(t *testing.T) {
	kbd := mustParse(t, KeyboardFunction())
	touch := mustParse(t, TouchFunction())
	out := mustParse(t, Function{Name: "out", Descriptor: []byte{0x75, 0x08, 0x95, 0x01, 0x91, 0x02}})
	tests := []struct {
		name   string
		d      *Descriptor
		report []byte
		want   string
	}{
		{"empty", kbd, nil, "empty"},
		{"short", kbd, make([]byte, 7), "input report 0 is 7 bytes long, the descriptor declares 8"},
		{"long", kbd, make([]byte, 9), "9 bytes long"},
		{"unknown id", touch, []byte{2, 0}, "no input report with ID 2"},
		{"touch short", touch, []byte{1, 3, 0, 0}, "input report 1 is 4 bytes long, the descriptor declares 8"},
		{"no input", out, []byte{0}, "declares no input report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.d.Decode(tt.report)
			if err == nil || !errors.Is(err, ErrReport) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode(% x) = %v, want ErrReport containing %q", tt.report, err, tt.want)
			}
		})
	}
}
