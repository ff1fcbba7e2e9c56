package muxusb

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Golden packets, as usbmuxd's device.c lays them out.
var goldenPackets = []struct {
	name string
	v2   bool
	hex  string
	p    Packet
}{
	{"version request (v1 header)", false,
		"00000000 00000014 00000002 00000000 00000000",
		Packet{Header: Header{Protocol: ProtoVersion, Length: 20}, Version: Version{Major: 2}}},
	{"setup (v2, sequence restarted)", true,
		"00000002 00000011 feedface 0000 ffff 07",
		Packet{Header: Header{Protocol: ProtoSetup, Length: 17, V2: true, RxSeq: 0xffff}, Payload: []byte{7}}},
	{"SYN to lockdownd, 128 KiB window", true,
		"00000006 00000024 feedface 0001 ffff 0001 f27e 00000000 00000000 50 02 0200 0000 0000",
		Packet{Header: Header{Protocol: ProtoTCP, Length: 36, V2: true, TxSeq: 1, RxSeq: 0xffff},
			TCP: TCPHeader{SrcPort: 1, DstPort: 62078, Flags: FlagSYN, Window: 0x200}}},
	{"data with ACK (v1 header)", false,
		"00000006 0000001e f27e 0001 00000001 00000005 50 10 0002 0000 0000 6869",
		Packet{Header: Header{Protocol: ProtoTCP, Length: 30},
			TCP: TCPHeader{SrcPort: 62078, DstPort: 1, Seq: 1, Ack: 5, Flags: FlagACK, Window: 2}, Payload: []byte("hi")}},
	{"control: device error", true,
		"00000001 00000014 feedface 0007 0003 03 6f6f70",
		Packet{Header: Header{Protocol: ProtoControl, Length: 20, V2: true, TxSeq: 7, RxSeq: 3}, Payload: []byte("\x03oop")}},
}

func TestPacketGolden(t *testing.T) {
	for _, tc := range goldenPackets {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.hex)
			p := tc.p
			if got := p.Append(nil); !bytes.Equal(got, want) {
				t.Errorf("Append = % x\nwant     % x", got, want)
			}
			got, err := ParsePacket(want, tc.v2)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.p) {
				t.Errorf("ParsePacket = %+v\nwant          %+v", got, tc.p)
			}
		})
	}
}

func TestParsePacketErrors(t *testing.T) {
	for _, tc := range []struct {
		name, hex string
		v2        bool
		want      string
	}{
		{"shorter than a header", "00000006 0000", false, "shorter than a 8-byte header"},
		{"v2 header cut", "00000006 0000000c feedface", true, "shorter than a 16-byte header"},
		{"length disagrees", "00000002 00000010 07", false, "header says 16 bytes, packet has 9"},
		{"bad magic", "00000002 00000011 deadbeef 0000 ffff 07", true, "magic 0xdeadbeef"},
		{"unknown protocol", "00000009 00000008", false, "unknown protocol 9"},
		{"TCP without its header", "00000006 0000000c 00010002", false, "no room for its header"},
		{"TCP options", "00000006 00000020 0001 f27e 00000000 00000000 60 02 0200 0000 0000 00000000", false, "data offset 24"},
		{"short version", "00000000 0000000c 00000002", false, "VERSION packet of 12 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePacket(unhex(t, tc.hex), tc.v2)
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParsePacket = %v, want ErrMalformed saying %q", err, tc.want)
			}
		})
	}
}

// TestFramer cuts packets out of transfers that split and join them.
func TestFramer(t *testing.T) {
	a := unhex(t, goldenPackets[3].hex)
	b := unhex(t, goldenPackets[0].hex)
	var f framer
	f.push(a[:5])
	if _, ok, err := f.next(false); ok || err != nil {
		t.Fatalf("next on 5 bytes = %v, %v; want more needed", ok, err)
	}
	f.push(append(a[5:], b[:10]...)) // the end of one, the start of the next
	p, ok, err := f.next(false)
	if !ok || err != nil || string(p.Payload) != "hi" {
		t.Fatalf("first packet = %+v, %v, %v", p, ok, err)
	}
	if _, ok, _ := f.next(false); ok {
		t.Fatal("a packet out of 10 bytes")
	}
	f.push(b[10:])
	if p, ok, err := f.next(false); !ok || err != nil || p.Version.Major != 2 {
		t.Fatalf("second packet = %+v, %v, %v", p, ok, err)
	}

	for _, tc := range []struct {
		name, hex string
		v2        bool
	}{
		{"length below the v1 header", "00000006 00000004", false},
		{"length below the v2 header", "00000006 0000000c feedface 0000 0000", true},
		{"length past the largest packet", "00000006 00010001", false},
	} {
		var f framer
		f.push(unhex(t, tc.hex))
		if _, _, err := f.next(tc.v2); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: next = %v, want ErrMalformed", tc.name, err)
		}
	}
}

// FuzzFramer feeds arbitrary transfers to the packet reader: it never
// panics, and what it parses encodes back to the same packet.
func FuzzFramer(f *testing.F) {
	for _, g := range goldenPackets {
		f.Add(unhex(f, g.hex), g.v2, uint8(7))
	}
	f.Add([]byte{0, 0, 0, 6, 0xff, 0xff, 0xff, 0xff}, false, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, v2 bool, cut uint8) {
		var fr framer
		step := int(cut)%64 + 1
		for len(data) > 0 {
			n := min(step, len(data))
			fr.push(data[:n])
			data = data[n:]
			for {
				p, ok, err := fr.next(v2)
				if err != nil {
					return
				}
				if !ok {
					break
				}
				again, err := ParsePacket(p.Append(nil), v2)
				if err != nil {
					t.Fatalf("re-encoded %+v does not parse: %v", p, err)
				}
				if !reflect.DeepEqual(again, p) {
					t.Fatalf("round trip: %+v != %+v", again, p)
				}
			}
		}
	})
}
