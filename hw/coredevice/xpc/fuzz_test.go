package xpc

import (
	"bytes"
	"os"
	"reflect"
	"testing"
)

// FuzzUnmarshal checks that the decoder never panics and that whatever it
// accepts re-encodes to bytes that decode to the same message.
func FuzzUnmarshal(f *testing.F) {
	for _, name := range []string{"testdata/xpc_dict.bin", "testdata/xpc_empty_dict.bin"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	b, _ := Message{Flags: 1, Body: Dict{{"a", []any{UUID{}, 1.5, FileTransfer{1, 2}}}}}.Marshal()
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Unmarshal(b)
		if err != nil {
			return
		}
		out, err := m.Marshal()
		if err != nil {
			t.Fatalf("decoded message does not encode: %v", err)
		}
		m2, err := Unmarshal(out)
		if err != nil {
			t.Fatalf("re-encoded message does not decode: %v", err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip changed the message:\n%#v\n%#v", m, m2)
		}
		if _, err := ReadMessage(bytes.NewReader(b)); err != nil {
			t.Fatalf("ReadMessage refused what Unmarshal took: %v", err)
		}
	})
}
