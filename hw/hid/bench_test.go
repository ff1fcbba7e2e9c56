package hid

import "testing"

// BenchmarkParse parses the touchscreen descriptor (the sim parses each
// function's descriptor once at start).
func BenchmarkParse(b *testing.B) {
	desc := TouchFunction().Descriptor
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(desc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeTouch decodes one touch report, what the sim does per
// touch point.
func BenchmarkDecodeTouch(b *testing.B) {
	d, err := Parse(TouchFunction().Descriptor)
	if err != nil {
		b.Fatal(err)
	}
	r := Touch(TouchState{Contact: true, ID: 3, X: 12345, Y: 23456})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Decode(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeKeyboard decodes one keyboard report.
func BenchmarkDecodeKeyboard(b *testing.B) {
	d, err := Parse(KeyboardFunction().Descriptor)
	if err != nil {
		b.Fatal(err)
	}
	r := Keyboard(LeftShift, KeyA, KeyEnter)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Decode(r); err != nil {
			b.Fatal(err)
		}
	}
}
