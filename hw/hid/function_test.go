package hid

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden descriptor files in testdata/")

// hexLines renders b as lines of 16 hex bytes.
func hexLines(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		n := min(16, len(b))
		for i, c := range b[:n] {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(hex.EncodeToString([]byte{c}))
		}
		sb.WriteByte('\n')
		b = b[n:]
	}
	return sb.String()
}

func TestDescriptorGolden(t *testing.T) {
	for _, k := range Kinds() {
		f, _ := FunctionFor(k)
		path := filepath.Join("testdata", f.Name+".hex")
		got := hexLines(f.Descriptor)
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run go test -update to create it)", f.Name, err)
		}
		if got != string(want) {
			t.Errorf("%s descriptor changed; a phone may see a different device.\ngot:\n%s\nwant:\n%s\n(run go test ./hw/hid -update if the change is intended)", f.Name, got, want)
		}
	}
}

func TestFunctionsParse(t *testing.T) {
	for _, k := range Kinds() {
		t.Run(k.String(), func(t *testing.T) {
			f, ok := FunctionFor(k)
			if !ok || f.Kind != k || f.Name != k.String() {
				t.Fatalf("FunctionFor(%v) = %+v, %v", k, f, ok)
			}
			d, err := Parse(f.Descriptor)
			if err != nil {
				t.Fatalf("Parse(%s) = %v", f.Name, err)
			}
			if got := d.MaxReportLength(Input); got != f.ReportLength {
				t.Errorf("%s: descriptor declares %d-byte input reports, ReportLength = %d", f.Name, got, f.ReportLength)
			}
		})
	}
}

func TestFunctionsAreFresh(t *testing.T) {
	a := TouchFunction()
	a.Descriptor[0] = 0xff
	if b := TouchFunction(); b.Descriptor[0] != 0x05 {
		t.Errorf("changing one TouchFunction's descriptor changed the next: byte 0 = %#x", b.Descriptor[0])
	}
	if _, ok := FunctionFor(Kind(0)); ok {
		t.Errorf("FunctionFor(0) ok = true, want false")
	}
	if s := Kind(99).String(); s != "kind(99)" {
		t.Errorf("Kind(99).String() = %q", s)
	}
}

func TestFunctionIDs(t *testing.T) {
	tests := []struct {
		f                  Function
		subclass, protocol uint8
	}{
		{KeyboardFunction(), 1, 1},
		{ConsumerFunction(), 0, 0},
		{TouchFunction(), 0, 0},
		{AbsMouseFunction(), 0, 0},
		{RelMouseFunction(), 1, 2},
	}
	for _, tt := range tests {
		if tt.f.Subclass != tt.subclass || tt.f.Protocol != tt.protocol {
			t.Errorf("%s: subclass/protocol = %d/%d, want %d/%d", tt.f.Name, tt.f.Subclass, tt.f.Protocol, tt.subclass, tt.protocol)
		}
	}
}

// TestTouchDescriptorShape checks what hid-multitouch and Android key on:
// a Touch Screen application, a Contact Identifier input, X/Y 0..32767
// with a physical size, Contact Count, and Contact Count Maximum as a
// feature report.
func TestTouchDescriptorShape(t *testing.T) {
	d, err := Parse(TouchFunction().Descriptor)
	if err != nil {
		t.Fatal(err)
	}
	find := func(typ ReportType, page, usage uint16) *Field {
		for i, f := range d.Fields {
			if f.Type == typ && !f.Constant() && len(f.Usages) > 0 {
				for _, u := range f.Usages {
					if u == uint32(page)<<16|uint32(usage) {
						return &d.Fields[i]
					}
				}
			}
		}
		return nil
	}
	app := uint32(PageDigitizer)<<16 | uint32(UsageTouchScreen)
	for _, u := range []struct {
		typ         ReportType
		page, usage uint16
	}{
		{Input, PageDigitizer, UsageTipSwitch},
		{Input, PageDigitizer, UsageInRange},
		{Input, PageDigitizer, UsageContactID},
		{Input, PageGenericDesktop, UsageX},
		{Input, PageGenericDesktop, UsageY},
		{Input, PageDigitizer, UsageContactCount},
		{Feature, PageDigitizer, UsageContactCountMaximum},
	} {
		f := find(u.typ, u.page, u.usage)
		if f == nil {
			t.Errorf("no %s field for usage %#x:%#x", u.typ, u.page, u.usage)
			continue
		}
		if f.Application != app {
			t.Errorf("usage %#x:%#x is in application %#x, want Touch Screen %#x", u.page, u.usage, f.Application, app)
		}
	}
	for _, u := range []uint16{UsageX, UsageY} {
		f := find(Input, PageGenericDesktop, u)
		if f == nil {
			continue
		}
		if f.LogicalMin != 0 || f.LogicalMax != MaxCoord || f.Size != 16 || f.Relative() {
			t.Errorf("axis %#x: logical %d..%d, %d bits, relative %v; want 0..32767, 16 bits, absolute", u, f.LogicalMin, f.LogicalMax, f.Size, f.Relative())
		}
		if f.PhysicalMax <= 0 || f.Unit != 0x11 || f.UnitExponent != -2 {
			t.Errorf("axis %#x: physical max %d unit %#x exponent %d; want a size in 1/100 cm", u, f.PhysicalMax, f.Unit, f.UnitExponent)
		}
	}
	if f := find(Input, PageDigitizer, UsageContactCount); f != nil && (f.Size != 8 || f.LogicalMin != 0 || f.LogicalMax != 10) {
		t.Errorf("Contact Count after Pop: %d bits %d..%d, want 8 bits 0..10", f.Size, f.LogicalMin, f.LogicalMax)
	}
	if n, ok := d.ReportLength(Feature, 2); !ok || n != 2 {
		t.Errorf("feature report 2 length = %d, %v; want 2", n, ok)
	}
	if ids := d.ReportIDs(Input); len(ids) != 1 || ids[0] != TouchReportID {
		t.Errorf("input report IDs = %v, want [%d]", ids, TouchReportID)
	}
}

func TestGoldenFilesMatchBytes(t *testing.T) {
	// The golden files are hex; make sure they decode to the descriptor
	// (so the golden test compares bytes, not just text layout).
	for _, k := range Kinds() {
		f, _ := FunctionFor(k)
		b, err := os.ReadFile(filepath.Join("testdata", f.Name+".hex"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := hex.DecodeString(strings.NewReplacer(" ", "", "\n", "").Replace(string(b)))
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if !bytes.Equal(got, f.Descriptor) {
			t.Errorf("%s: golden bytes differ from the descriptor", f.Name)
		}
		if _, err := Parse(got); errors.Is(err, ErrDescriptor) {
			t.Errorf("%s: golden bytes do not parse: %v", f.Name, err)
		}
	}
}
