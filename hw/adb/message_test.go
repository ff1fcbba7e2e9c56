package adb

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestMessageRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		m        Message
		checksum bool
	}{
		{"cnxn with checksum", Message{Command: CmdCNXN, Arg0: VersionMin, Arg1: MaxPayload, Data: []byte("host::features=shell_v2")}, true},
		{"okay without data", Message{Command: CmdOKAY, Arg0: 7, Arg1: 9}, false},
		{"wrte without checksum", Message{Command: CmdWRTE, Arg0: 1, Arg1: 2, Data: bytes.Repeat([]byte{0xff}, 4096)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteMessage(&buf, tc.m, tc.checksum); err != nil {
				t.Fatal(err)
			}
			if buf.Len() != headerSize+len(tc.m.Data) {
				t.Fatalf("wrote %d bytes, want %d", buf.Len(), headerSize+len(tc.m.Data))
			}
			got, err := ReadMessage(&buf, MaxPayload, tc.checksum)
			if err != nil {
				t.Fatal(err)
			}
			if got.Command != tc.m.Command || got.Arg0 != tc.m.Arg0 || got.Arg1 != tc.m.Arg1 || !bytes.Equal(got.Data, tc.m.Data) {
				t.Fatalf("read %+v, want %+v", got, tc.m)
			}
		})
	}
}

// The header of CNXN as protocol.txt lays it out: command, arg0, arg1,
// length, checksum (byte sum), magic, all little-endian.
func TestMessageBytes(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	WriteMessage(&buf, Message{Command: CmdOKAY, Arg0: 1, Arg1: 2, Data: []byte{1, 2, 3}}, true)
	want := []byte{
		'O', 'K', 'A', 'Y',
		1, 0, 0, 0,
		2, 0, 0, 0,
		3, 0, 0, 0,
		6, 0, 0, 0,
		'O' ^ 0xff, 'K' ^ 0xff, 'A' ^ 0xff, 'Y' ^ 0xff,
		1, 2, 3,
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("bytes\n got %x\nwant %x", buf.Bytes(), want)
	}
}

func TestReadMessageErrors(t *testing.T) {
	t.Parallel()
	good := func(m Message, checksum bool) []byte {
		var buf bytes.Buffer
		WriteMessage(&buf, m, checksum)
		return buf.Bytes()
	}
	badMagic := good(Message{Command: CmdOKAY}, true)
	badMagic[20] ^= 1
	badSum := good(Message{Command: CmdWRTE, Data: []byte("abc")}, true)
	badSum[16]++
	for _, tc := range []struct {
		name    string
		in      []byte
		max     uint32
		require bool
		want    error
	}{
		{"empty", nil, MaxPayload, false, io.EOF},
		{"short header", badMagic[:10], MaxPayload, false, io.ErrUnexpectedEOF},
		{"bad magic", badMagic, MaxPayload, false, ErrBadMagic},
		{"too large", good(Message{Command: CmdWRTE, Data: make([]byte, 100)}, false), 99, false, ErrTooLarge},
		{"short data", good(Message{Command: CmdWRTE, Data: make([]byte, 100)}, false)[:50], MaxPayload, false, io.ErrUnexpectedEOF},
		{"wrong checksum", badSum, MaxPayload, false, ErrBadChecksum},
		{"missing checksum where required", good(Message{Command: CmdWRTE, Data: []byte("abc")}, false), MaxPayload, true, ErrBadChecksum},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadMessage(bytes.NewReader(tc.in), tc.max, tc.require)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestCommandString(t *testing.T) {
	t.Parallel()
	if got := CmdCNXN.String(); got != "CNXN" {
		t.Errorf("CmdCNXN = %q", got)
	}
	if got := Command(1).String(); got != "0x00000001" {
		t.Errorf("Command(1) = %q", got)
	}
}

// FuzzReadMessage: any bytes give a message or an error, never a panic
// or an allocation beyond the limit; a message read re-encodes to the
// bytes it came from.
func FuzzReadMessage(f *testing.F) {
	var buf bytes.Buffer
	WriteMessage(&buf, Message{Command: CmdCNXN, Arg0: VersionMin, Arg1: 4096, Data: []byte("device::")}, true)
	f.Add(buf.Bytes())
	f.Add([]byte("OKAY\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := ReadMessage(bytes.NewReader(in), 4096, false)
		if err != nil {
			return
		}
		if len(m.Data) > 4096 {
			t.Fatalf("read %d bytes of data past the limit", len(m.Data))
		}
		var out bytes.Buffer
		WriteMessage(&out, m, true)
		if !bytes.Equal(out.Bytes()[:16], in[:16]) || !bytes.Equal(out.Bytes()[20:], in[20:headerSize+len(m.Data)]) {
			t.Fatalf("re-encoded %x from %x", out.Bytes(), in)
		}
	})
}
