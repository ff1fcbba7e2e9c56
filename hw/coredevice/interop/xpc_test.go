package interop

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	goxpc "github.com/danielpaulus/go-ios/ios/xpc"

	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// toGoIOS converts our decoded values to go-ios's representation
// (map[string]interface{}, uuid.UUID) so the two can be compared.
func toGoIOS(v any) any {
	switch x := v.(type) {
	case xpc.Dict:
		m := map[string]interface{}{}
		for _, e := range x {
			m[e.Key] = toGoIOS(e.Value)
		}
		return m
	case []any:
		a := make([]interface{}, len(x))
		for i, e := range x {
			a[i] = toGoIOS(e)
		}
		return a
	case xpc.UUID:
		return uuid.UUID(x)
	case time.Time:
		return x.UTC()
	}
	return v
}

// utc rewrites go-ios's decoded dates (local time) in UTC.
func utc(v any) any {
	switch x := v.(type) {
	case map[string]interface{}:
		m := map[string]interface{}{}
		for k, e := range x {
			m[k] = utc(e)
		}
		return m
	case []interface{}:
		a := make([]interface{}, len(x))
		for i, e := range x {
			a[i] = utc(e)
		}
		return a
	case time.Time:
		return x.UTC()
	}
	return v
}

// sample is a CoreDevice-shaped request using every type both sides know.
func sample() (xpc.Dict, map[string]interface{}) {
	u := uuid.MustParse("62419fc1-5abf-4d96-bca8-7a5f6f9a69ee")
	when := time.Unix(1764580000, 123456789).UTC()
	ours := xpc.Dict{
		{Key: "CoreDevice.featureIdentifier", Value: "com.apple.coredevice.feature.launchapplication"},
		{Key: "CoreDevice.CoreDeviceDDIProtocolVersion", Value: int64(-2)},
		{Key: "components", Value: []any{uint64(629), uint64(3)}},
		{Key: "ok", Value: true},
		{Key: "no", Value: false},
		{Key: "ratio", Value: 0.75},
		{Key: "when", Value: when},
		{Key: "png", Value: []byte{0x89, 'P', 'N', 'G', 1, 2, 3}},
		{Key: "text", Value: "héllo ✓ 日本"},
		{Key: "sideChannel", Value: xpc.UUID(u)},
		{Key: "nothing", Value: nil},
		{Key: "nested", Value: xpc.Dict{{Key: "empty", Value: xpc.Dict{}}, {Key: "list", Value: []any{}}}},
	}
	theirs := toGoIOS(ours).(map[string]interface{})
	return ours, theirs
}

// TestXPCGoIOSDecodesOurs: every message we encode, go-ios decodes to the
// same values.
func TestXPCGoIOSDecodesOurs(t *testing.T) {
	ours, want := sample()
	b, err := xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagDataPresent | xpc.FlagWantingReply, ID: 7, Body: ours}.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	m, err := goxpc.DecodeMessage(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("go-ios DecodeMessage: %v", err)
	}
	if m.Flags != goxpc.AlwaysSetFlag|goxpc.DataFlag|goxpc.HeartbeatRequestFlag {
		t.Errorf("flags %#x", m.Flags)
	}
	if got := utc(m.Body); !reflect.DeepEqual(got, want) {
		t.Errorf("go-ios decoded\n%#v\nwant\n%#v", m.Body, want)
	}
	// A wrapper without payload, as the handshake sends.
	b, _ = xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagInitHandshake}.Marshal()
	if m, err := goxpc.DecodeMessage(bytes.NewReader(b)); err != nil || m.Body != nil || m.Flags != goxpc.InitHandshakeFlag|goxpc.AlwaysSetFlag {
		t.Errorf("empty wrapper: %#v, %v", m, err)
	}
}

// arrays counts the arrays in v (their lengths differ by the count field).
func arrays(v any) int {
	n := 0
	switch x := v.(type) {
	case xpc.Dict:
		for _, e := range x {
			n += arrays(e.Value)
		}
	case []any:
		n = 1
		for _, e := range x {
			n += arrays(e)
		}
	}
	return n
}

// TestXPCWeDecodeGoIOS: every message go-ios encodes, we decode to the
// same values.
func TestXPCWeDecodeGoIOS(t *testing.T) {
	_, theirs := sample()
	var b bytes.Buffer
	if err := goxpc.EncodeMessage(&b, goxpc.Message{Flags: goxpc.AlwaysSetFlag | goxpc.DataFlag, Body: theirs, Id: 9}); err != nil {
		t.Fatal(err)
	}
	m, err := xpc.Unmarshal(b.Bytes())
	if err != nil {
		t.Fatalf("our Unmarshal of go-ios's bytes: %v", err)
	}
	if m.ID != 9 || m.Flags != xpc.FlagAlwaysSet|xpc.FlagDataPresent {
		t.Errorf("id %d flags %#x", m.ID, m.Flags)
	}
	if got := toGoIOS(m.Body); !reflect.DeepEqual(got, theirs) {
		t.Errorf("we decoded\n%#v\nwant\n%#v", got, theirs)
	}
	// Re-encoding gives go-ios's bytes back except for array lengths:
	// go-ios v1.3.2 leaves the count field out of them, the device
	// capture (testdata/xpc_dict.bin) counts it, and we write that.
	out, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	diff := 0
	for i := range min(len(out), b.Len()) {
		if out[i] != b.Bytes()[i] {
			diff++
			if out[i]-b.Bytes()[i] != 4 {
				t.Errorf("byte %d: ours %#x, go-ios %#x", i, out[i], b.Bytes()[i])
			}
		}
	}
	if len(out) != b.Len() || diff != arrays(m.Body) {
		t.Errorf("re-encoded %d bytes from go-ios's %d; %d bytes differ, want the %d array lengths", len(out), b.Len(), diff, arrays(m.Body))
	}
}
