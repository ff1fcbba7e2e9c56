package xpc

import (
	"bytes"
	"errors"
	"math"
	"os"
	"reflect"
	"testing"
	"time"
)

// TestGoldenLaunchRequest decodes go-ios's captured launchapplication
// request and re-encodes it to the same bytes.
func TestGoldenLaunchRequest(t *testing.T) {
	b, err := os.ReadFile("testdata/xpc_dict.bin")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Unmarshal(b)
	if err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if want := FlagAlwaysSet | FlagDataPresent | FlagWantingReply; m.Flags != want || m.ID != 1 {
		t.Errorf("flags, id = %#x, %d; want %#x, 1", m.Flags, m.ID, want)
	}
	if got := m.Body.String("CoreDevice.featureIdentifier"); got != "com.apple.coredevice.feature.launchapplication" {
		t.Errorf("featureIdentifier = %q", got)
	}
	v := m.Body.Dict("CoreDevice.coreDeviceVersion")
	if !reflect.DeepEqual(v.Array("components"), []any{uint64(348), uint64(1), uint64(0), uint64(0), uint64(0)}) {
		t.Errorf("components = %#v", v.Array("components"))
	}
	if n, _ := v.Get("originalComponentsCount"); n != int64(2) {
		t.Errorf("originalComponentsCount = %#v, want int64(2)", n)
	}
	opts := m.Body.Dict("CoreDevice.input").Dict("options")
	if w, ok := opts.Get("workingDirectory"); !ok || w != nil {
		t.Errorf("workingDirectory = %#v, %v; want null", w, ok)
	}
	if !bytes.HasPrefix(opts.Data("platformSpecificOptions"), []byte("bplist00")) {
		t.Errorf("platformSpecificOptions = %q", opts.Data("platformSpecificOptions"))
	}
	if !opts.Bool("standardIOUsesPseudoterminals") || opts.Bool("startStopped") {
		t.Errorf("bools = %v %v", opts.Bool("standardIOUsesPseudoterminals"), opts.Bool("startStopped"))
	}
	out, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, b) {
		t.Errorf("re-encoded %d bytes differ from the %d captured", len(out), len(b))
	}
}

func TestGoldenEmptyDict(t *testing.T) {
	b, err := os.ReadFile("testdata/xpc_empty_dict.bin")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Body == nil || len(m.Body) != 0 || m.Flags != FlagAlwaysSet {
		t.Errorf("got %#v, want an empty dictionary with flags 1", m)
	}
	out, _ := Message{Flags: FlagAlwaysSet, Body: Dict{}}.Marshal()
	if !bytes.Equal(out, b) {
		t.Errorf("encoded\n%x\nwant\n%x", out, b)
	}
}

func TestRoundTrip(t *testing.T) {
	u, _ := ParseUUID("62419fc1-5abf-4d96-bca8-7a5f6f9a69ee")
	body := Dict{
		{"null", nil},
		{"t", true},
		{"f", false},
		{"i", int64(-7)},
		{"u", uint64(math.MaxUint64)},
		{"d", 2.5},
		{"date", time.Unix(1700000000, 123).UTC()},
		{"data", []byte{1, 2, 3, 4, 5}},
		{"empty data", []byte{}},
		{"s", "héllo ✓ 日本"},
		{"", ""},
		{"uuid", u},
		{"a", []any{uint64(1), "x", Dict{}, []any{}}},
		{"nested", Dict{{"k", Dict{{"k2", int64(1)}}}}},
		{"file", FileTransfer{MsgID: 1, Size: 99}},
	}
	for _, m := range []Message{
		{Flags: FlagAlwaysSet | FlagDataPresent | FlagWantingReply, ID: 42, Body: body},
		{Flags: FlagAlwaysSet | FlagInitHandshake},
		{Flags: FlagAlwaysSet, Body: Dict{}},
	} {
		b, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadMessage(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("ReadMessage: %v", err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("round trip:\n got %#v\nwant %#v", got, m)
		}
	}
}

// TestArrayLengthForms reads arrays whose length counts the count field
// (devices) and whose length leaves it out (go-ios v1.3.2's encoder).
func TestArrayLengthForms(t *testing.T) {
	null := []byte{0, 0x10, 0, 0}
	for _, n := range []byte{8, 4} {
		arr := append([]byte{0, 0xe0, 0, 0, n, 0, 0, 0, 1, 0, 0, 0}, null...)
		m, err := Unmarshal(mustRaw(t, dictWith(arr)))
		if err != nil {
			t.Errorf("length %d: %v", n, err)
			continue
		}
		if a := m.Body.Array("k"); len(a) != 1 || a[0] != nil {
			t.Errorf("length %d: %#v", n, a)
		}
	}
}

func TestMapSortsKeys(t *testing.T) {
	a, err := AppendObject(nil, map[string]any{"b": int64(1), "a": "x"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := AppendObject(nil, Dict{{"a", "x"}, {"b", int64(1)}})
	if !bytes.Equal(a, b) {
		t.Errorf("map encoding %x, want %x", a, b)
	}
}

func TestEncodeUnsupported(t *testing.T) {
	for _, v := range []any{int(1), uint32(1), struct{}{}, Dict{{"k", []int{1}}}} {
		if _, err := AppendObject(nil, v); err == nil {
			t.Errorf("AppendObject(%#v) succeeded, want an error", v)
		}
	}
	deep := any(Dict{})
	for i := 0; i < maxDepth+2; i++ {
		deep = []any{deep}
	}
	if _, err := AppendObject(nil, deep); err == nil {
		t.Error("AppendObject of a too deep value succeeded")
	}
}

func TestMalformed(t *testing.T) {
	good, _ := Message{Flags: 1, Body: Dict{{"k", "v"}, {"a", []any{int64(1)}}}}.Marshal()
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, good...)) }
	deep := []byte{}
	for i := 0; i < maxDepth+2; i++ {
		deep = append(deep, 0x00, 0xe0, 0, 0) // array
		deep = append(deep, 0, 0, 0, 0)       // length patched below (never reached)
		deep = append(deep, 1, 0, 0, 0)       // one element
	}
	tests := []struct {
		name string
		b    []byte
	}{
		{"short header", good[:10]},
		{"bad wrapper magic", mut(func(b []byte) []byte { b[0] = 0; return b })},
		{"length too long", mut(func(b []byte) []byte { b[8]++; return b })},
		{"truncated", good[:len(good)-1]},
		{"bad payload magic", mut(func(b []byte) []byte { b[24] = 0; return b })},
		{"bad version", mut(func(b []byte) []byte { b[28] = 4; return b })},
		{"payload too large", mut(func(b []byte) []byte { b[15] = 1; return b })},
		{"payload shorter than its header", append(le.AppendUint64(good[:8:8], 4), append(make([]byte, 8), 1, 2, 3, 4)...)},
		{"root not a dict", mustRaw(t, le.AppendUint32(nil, typeNull))},
		{"unknown type", mustRaw(t, le.AppendUint32(nil, 0xB000))},
		{"dict count too large", mustRaw(t, []byte{0, 0xf0, 0, 0, 4, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f})},
		{"dict body too short", mustRaw(t, []byte{0, 0xf0, 0, 0, 2, 0, 0, 0, 0, 0})},
		{"dict body past the end", mustRaw(t, []byte{0, 0xf0, 0, 0, 0xff, 0, 0, 0, 0, 0, 0, 0})},
		{"key without NUL", mustRaw(t, []byte{0, 0xf0, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'})},
		{"string without NUL", mustRaw(t, dictWith(le.AppendUint32(le.AppendUint32(nil, typeString), 4), 'a', 'b', 'c', 'd'))},
		{"string length 0", mustRaw(t, dictWith(le.AppendUint32(le.AppendUint32(nil, typeString), 0)))},
		{"data past the end", mustRaw(t, dictWith(le.AppendUint32(le.AppendUint32(nil, typeData), 1000)))},
		{"extra bytes in dict", mustRaw(t, []byte{0, 0xf0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4})},
		{"too deep", mustRaw(t, dictWith(deep))},
		{"array length wrong", mustRaw(t, dictWith([]byte{0, 0xe0, 0, 0, 100, 0, 0, 0, 1, 0, 0, 0, 0, 0x10, 0, 0}))},
		{"array count too large", mustRaw(t, dictWith([]byte{0, 0xe0, 0, 0, 8, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0x10, 0, 0}))},
		{"file transfer without size", mustRaw(t, dictWith(append(le.AppendUint64(le.AppendUint32(nil, typeFileTransfer), 1), 0, 0xf0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0)))},
	}
	for _, tt := range tests {
		_, err := Unmarshal(tt.b)
		if err == nil {
			t.Errorf("%s: Unmarshal succeeded, want an error", tt.name)
		} else if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error %v does not wrap ErrMalformed", tt.name, err)
		}
	}
	if _, err := ReadMessage(bytes.NewReader(good[:30])); err == nil || errors.Is(err, ErrMalformed) {
		t.Errorf("ReadMessage of a short stream = %v, want a read error", err)
	}
}

// dictWith returns a dictionary object with one entry "k" whose value is
// the raw object bytes obj.
func dictWith(obj []byte, extra ...byte) []byte {
	obj = append(obj, extra...)
	body := le.AppendUint32(nil, 1)
	body = append(body, 'k', 0, 0, 0)
	body = append(body, obj...)
	b := le.AppendUint32(nil, typeDict)
	b = le.AppendUint32(b, uint32(len(body)))
	return append(b, body...)
}

// mustRaw wraps a raw root object into a message.
func mustRaw(t *testing.T, obj []byte) []byte {
	t.Helper()
	b := le.AppendUint32(nil, wrapperMagic)
	b = le.AppendUint32(b, 1)
	b = le.AppendUint64(b, uint64(8+len(obj)))
	b = le.AppendUint64(b, 0)
	b = le.AppendUint32(b, payloadMagic)
	b = le.AppendUint32(b, payloadVersion)
	return append(b, obj...)
}

func TestUUID(t *testing.T) {
	u, err := ParseUUID("62419fc1-5abf-4d96-bca8-7a5f6f9a69ee")
	if err != nil {
		t.Fatal(err)
	}
	if got := u.String(); got != "62419FC1-5ABF-4D96-BCA8-7A5F6F9A69EE" {
		t.Errorf("String = %q", got)
	}
	for _, s := range []string{"", "62419fc1-5abf-4d96-bca8-7a5f6f9a69e", "62419fc1x5abf-4d96-bca8-7a5f6f9a69ee", "g2419fc1-5abf-4d96-bca8-7a5f6f9a69ee"} {
		if _, err := ParseUUID(s); err == nil {
			t.Errorf("ParseUUID(%q) succeeded", s)
		}
	}
}

func TestDictAccessors(t *testing.T) {
	d := Dict{}.Set("n", int64(3)).Set("neg", int64(-1)).Set("u", uint64(4)).Set("n", int64(5))
	if len(d) != 3 {
		t.Fatalf("Set appended a duplicate: %v", d)
	}
	if n, ok := d.Uint("n"); !ok || n != 5 {
		t.Errorf("Uint(n) = %d, %v", n, ok)
	}
	if _, ok := d.Uint("neg"); ok {
		t.Error("Uint of a negative int64 succeeded")
	}
	if n, ok := d.Uint("u"); !ok || n != 4 {
		t.Errorf("Uint(u) = %d, %v", n, ok)
	}
	if d.String("n") != "" || d.Dict("n") != nil || d.Data("n") != nil || d.Array("n") != nil || d.Bool("n") {
		t.Error("typed accessors returned a value of another type")
	}
}
