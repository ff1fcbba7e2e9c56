package plist

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	v := Dict{
		{"MessageType", "Connect"},
		{"escaped <&>", "a<b>&\"c\""},
		{"Unicode", "héllo ✓ 日本"},
		{"PortNumber", uint64(0x7ef2)},
		{"Neg", int64(-5)},
		{"Real", 0.5},
		{"Yes", true},
		{"No", false},
		{"Data", []byte("pair record \x00\xff")},
		{"Empty data", []byte{}},
		{"Date", time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)},
		{"Array", []any{"a", uint64(1), Dict{}, []any{}}},
		{"Dict", Dict{{"k", "v"}}},
	}
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Unmarshal(b)
	if err != nil {
		t.Fatalf("Unmarshal: %v\n%s", err, b)
	}
	if !reflect.DeepEqual(got, v) {
		t.Errorf("round trip:\n got %#v\nwant %#v\n%s", got, v, b)
	}
}

func TestMarshalTypes(t *testing.T) {
	b, err := Marshal(map[string]any{"b": 1, "a": uint32(2), "c": int8(-1)})
	if err != nil {
		t.Fatal(err)
	}
	d, err := UnmarshalDict(b)
	if err != nil {
		t.Fatal(err)
	}
	want := Dict{{"a", uint64(2)}, {"b", uint64(1)}, {"c", int64(-1)}}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("got %#v, want %#v", d, want)
	}
	for _, v := range []any{struct{}{}, Dict{{"k", []int{1}}}, nil} {
		if _, err := Marshal(v); err == nil {
			t.Errorf("Marshal(%#v) succeeded", v)
		}
	}
}

func TestGoldenFixtures(t *testing.T) {
	tests := []struct {
		file string
		want Dict
	}{
		{"usbmuxresponse.plist", Dict{{"MessageType", "ErrorName"}, {"Number", uint64(5)}}},
		{"sample-plist-primitives.plist", Dict{{"FloatValue", 0.2}, {"IntValue", uint64(4)}, {"StringValue", "d"}}},
	}
	for _, tt := range tests {
		b, err := os.ReadFile("testdata/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := UnmarshalDict(b)
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.file, got, tt.want)
		}
	}
}

func TestBinarySample(t *testing.T) {
	b, err := os.ReadFile("testdata/sample.bplist")
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalDict(b)
	if err != nil {
		t.Fatal(err)
	}
	want := Dict{
		{"HostID", "F00D-CAFE"}, {"Count", uint64(42)}, {"Neg", int64(-3)}, {"Big", uint64(1 << 40)},
		{"Pi", 3.25}, {"Yes", true}, {"No", false}, {"Data", []byte("\x00\x01\x02pair")},
		{"Unicode", "héllo ✓ 日本"}, {"When", time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)},
		{"List", []any{uint64(1), "two", Dict{{"three", uint64(3)}}}}, {"Empty", Dict{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
	// The empty dictionary CoreDevice puts in launch options
	// (platformSpecificOptions in go-ios's xpc_dict.bin).
	empty := []byte("bplist00\xd0\x08\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x09")
	if d, err := UnmarshalDict(empty); err != nil || len(d) != 0 {
		t.Errorf("empty bplist = %#v, %v", d, err)
	}
}

func TestMalformed(t *testing.T) {
	sample, _ := os.ReadFile("testdata/sample.bplist")
	cut := func(n int) []byte { return append([]byte{}, sample[:len(sample)-n]...) }
	selfRef := []byte("bplist00\xa1\x00\x08\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x0a")
	tests := map[string]string{
		"not xml":           "hello",
		"unknown element":   "<plist><foo/></plist>",
		"bad integer":       "<plist><integer>x</integer></plist>",
		"bad data":          "<plist><data>!!</data></plist>",
		"bad date":          "<plist><date>yesterday</date></plist>",
		"key without value": "<plist><dict><key>a</key></dict></plist>",
		"two keys":          "<plist><dict><key>a</key><key>b</key></dict></plist>",
		"value without key": "<plist><dict><string>a</string></dict></plist>",
		"key in array":      "<plist><array><key>a</key></array></plist>",
		"text between":      "<plist><dict>junk</dict></plist>",
		"element in scalar": "<plist><string><b/></string></plist>",
		"empty plist":       "<plist></plist>",
		"unclosed":          "<plist><dict><key>a</key><string>b</string>",
		"too deep":          "<plist>" + strings.Repeat("<array>", maxDepth+2) + strings.Repeat("</array>", maxDepth+2) + "</plist>",
		"short binary":      "bplist00\x00",
		"cut trailer":       string(cut(1)),
		"self reference":    string(selfRef),
	}
	for name, in := range tests {
		if _, err := Unmarshal([]byte(in)); err == nil {
			t.Errorf("%s: Unmarshal succeeded", name)
		} else if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v does not wrap ErrMalformed", name, err)
		}
	}
	if _, err := UnmarshalDict([]byte("<plist><string>x</string></plist>")); !errors.Is(err, ErrMalformed) {
		t.Errorf("UnmarshalDict of a string = %v", err)
	}
}

func FuzzUnmarshal(f *testing.F) {
	sample, _ := os.ReadFile("testdata/sample.bplist")
	f.Add(sample)
	b, _ := Marshal(Dict{{"a", []any{uint64(1), "x", []byte{1}}}})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Unmarshal(b)
		if err != nil {
			return
		}
		if _, err := Marshal(v); err != nil && !bytes.Contains([]byte(err.Error()), []byte("no property-list type")) {
			t.Fatalf("decoded value does not encode: %v", err)
		}
	})
}

func TestMarshalBinary(t *testing.T) {
	long := strings.Repeat("x", 300)
	many := make([]any, 300)
	for i := range many {
		many[i] = uint64(i)
	}
	v := Dict{
		{"HostID", "F00D-CAFE"}, {"Count", uint64(42)}, {"Neg", int64(-3)}, {"Big", uint64(1 << 40)},
		{"Pi", 3.25}, {"Yes", true}, {"No", false}, {"Data", []byte("\x00\x01\x02pair")},
		{"Unicode", "héllo ✓ 日本"}, {"Long", long}, {"LongData", []byte(long)},
		{"List", []any{uint64(1), "two", Dict{{"three", uint64(3)}}}}, {"Empty", Dict{}}, {"Many", many},
	}
	b, err := MarshalBinary(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalDict(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, v) {
		t.Errorf("round trip:\ngot  %#v\nwant %#v", got, v)
	}
	// Apple's writer emits these very bytes for an empty dictionary
	// (platformSpecificOptions in go-ios's xpc_dict.bin).
	empty, err := MarshalBinary(Dict{})
	if want := "bplist00\xd0\x08\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x09"; err != nil || string(empty) != want {
		t.Errorf("MarshalBinary(Dict{}) = %q, %v; want %q", empty, err, want)
	}
	if _, err := MarshalBinary(Dict{{"t", time.Now()}}); err == nil {
		t.Error("MarshalBinary took a time.Time")
	}
}
