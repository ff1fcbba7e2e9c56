package hid

import "testing"

func seeds(f *testing.F) {
	for _, k := range Kinds() {
		fn, _ := FunctionFor(k)
		f.Add(fn.Descriptor)
	}
	f.Add([]byte{0xa4, 0xb4, 0xb4})
	f.Add([]byte{0xfe, 0x01, 0x00, 0x00, 0xc0})
	f.Add([]byte{0x19, 0x00, 0x2b, 0xff, 0xff, 0xff, 0xff})
}

// FuzzParse checks that no descriptor makes Parse panic, and that what
// parses also decodes a zero report of each declared input length.
func FuzzParse(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, desc []byte) {
		d, err := Parse(desc)
		if err != nil {
			return
		}
		for _, id := range d.ReportIDs(Input) {
			n, ok := d.ReportLength(Input, id)
			if !ok || n > MaxReportBytes+1 {
				t.Fatalf("report %d length %d, %v", id, n, ok)
			}
			if n == 0 {
				continue
			}
			r := make([]byte, n)
			r[0] = id
			if _, err := d.Decode(r); err != nil {
				t.Fatalf("Decode of a zero report %d of declared length %d: %v", id, n, err)
			}
		}
	})
}

// FuzzDecode checks that no report makes Decode panic on the box's own
// descriptors, and that reports of the declared length always decode.
func FuzzDecode(f *testing.F) {
	for _, k := range Kinds() {
		fn, _ := FunctionFor(k)
		f.Add(uint8(k), make([]byte, fn.ReportLength))
	}
	f.Add(uint8(KindTouch), Touch(TouchState{Contact: true, X: 100, Y: 200}))
	f.Fuzz(func(t *testing.T, kind uint8, report []byte) {
		fn, ok := FunctionFor(Kind(kind%5 + 1))
		if !ok {
			t.Fatalf("no function for kind %d", kind%5+1)
		}
		d, err := Parse(fn.Descriptor)
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Decode(report)
		if len(report) == fn.ReportLength && (!d.UsesReportIDs || report[0] == TouchReportID) && err != nil {
			t.Fatalf("Decode(% x) of the declared length: %v", report, err)
		}
	})
}
