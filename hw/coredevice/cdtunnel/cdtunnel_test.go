package cdtunnel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"reflect"
	"testing"
	"testing/iotest"
)

// The device's reply as pymobiledevice3's and go-ios's notes quote it
// (their tunnel handshake notes), with a concrete ULA prefix.
const replyJSON = `{"type":"serverHandshakeResponse","clientParameters":{"address":"fd35:d15d:9fa1::2","netmask":"ffff:ffff:ffff:ffff::","mtu":16000},"serverAddress":"fd35:d15d:9fa1::1","serverRSDPort":58783}`

func TestRequestBytes(t *testing.T) {
	var b bytes.Buffer
	if err := WriteRequest(&b, 1280); err != nil {
		t.Fatal(err)
	}
	body := `{"type":"clientHandshakeRequest","mtu":1280}`
	// go-ios writes "CDTunnel\x00" and a one-byte length: the same bytes
	// while the body is shorter than 256.
	want := append([]byte("CDTunnel\x00"), byte(len(body)))
	want = append(want, body...)
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("request\n%q\nwant\n%q", b.Bytes(), want)
	}
	req, err := ReadRequest(&b)
	if err != nil || req.MTU != 1280 {
		t.Errorf("ReadRequest = %+v, %v", req, err)
	}
}

func TestResponse(t *testing.T) {
	var b bytes.Buffer
	WriteFrame(&b, []byte(replyJSON))
	p, err := ReadResponse(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := Params{
		Address: netip.MustParseAddr("fd35:d15d:9fa1::2"), PrefixLen: 64, MTU: 16000,
		ServerAddress: netip.MustParseAddr("fd35:d15d:9fa1::1"), RSDPort: 58783,
	}
	if p != want {
		t.Errorf("ReadResponse = %+v, want %+v", p, want)
	}
	b.Reset()
	if err := WriteResponse(&b, want); err != nil {
		t.Fatal(err)
	}
	if again, err := ReadResponse(&b); err != nil || again != want {
		t.Errorf("round trip = %+v, %v", again, err)
	}
}

func TestMalformedHandshake(t *testing.T) {
	frame := func(s string) []byte {
		var b bytes.Buffer
		WriteFrame(&b, []byte(s))
		return b.Bytes()
	}
	sub := func(old, new string) []byte {
		return frame(string(bytes.Replace([]byte(replyJSON), []byte(old), []byte(new), 1)))
	}
	for name, in := range map[string][]byte{
		"wrong magic":    append([]byte("CDTunnex\x00\x02"), "{}"...),
		"not json":       frame("{"),
		"wrong type":     sub("serverHandshakeResponse", "other"),
		"ipv4 address":   sub("fd35:d15d:9fa1::2", "10.0.0.2"),
		"bad server":     sub("fd35:d15d:9fa1::1", "nope"),
		"holey netmask":  sub("ffff:ffff:ffff:ffff::", "ffff:0:ffff::"),
		"bad netmask":    sub("ffff:ffff:ffff:ffff::", "x"),
		"port 0":         sub("58783", "0"),
		"port too large": sub("58783", "70000"),
		"tiny mtu":       sub("16000", "500"),
		"truncated":      frame(replyJSON)[:20],
	} {
		if _, err := ReadResponse(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: ReadResponse succeeded", name)
		}
	}
	if _, err := ReadRequest(bytes.NewReader(frame(`{"type":"x"}`))); !errors.Is(err, ErrMalformed) {
		t.Errorf("ReadRequest of a wrong type = %v", err)
	}
	if err := WriteFrame(io.Discard, make([]byte, 70000)); err == nil {
		t.Error("WriteFrame of 70000 bytes succeeded")
	}
}

// packet returns an IPv6 packet with a payload of n bytes of b.
func packet(n int, b byte) []byte {
	p := make([]byte, ipv6Header+n)
	p[0] = 0x60
	binary.BigEndian.PutUint16(p[4:], uint16(n))
	p[6] = 17
	for i := ipv6Header; i < len(p); i++ {
		p[i] = b
	}
	return p
}

// TestPacketFraming is the bug go-ios fixed in PR #748: reads that hold
// several packets, or part of one, must still come out packet by packet.
func TestPacketFraming(t *testing.T) {
	pkts := [][]byte{packet(0, 1), packet(1, 2), packet(1400, 3), packet(0xFFFF, 4), packet(7, 5)}
	stream := bytes.Join(pkts, nil)
	for name, r := range map[string]io.Reader{
		"whole":    bytes.NewReader(stream),
		"one byte": iotest.OneByteReader(bytes.NewReader(stream)),
		"half":     iotest.HalfReader(bytes.NewReader(stream)),
	} {
		pr := NewPacketReader(r)
		var got [][]byte
		for {
			p, err := pr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, append([]byte{}, p...))
		}
		if !reflect.DeepEqual(got, pkts) {
			t.Errorf("%s: got %d packets, want %d", name, len(got), len(pkts))
		}
	}
}

func TestPacketErrors(t *testing.T) {
	v4 := packet(4, 0)
	v4[0] = 0x45
	for name, in := range map[string][]byte{
		"ipv4":         v4,
		"cut header":   packet(10, 0)[:20],
		"cut payload":  packet(10, 0)[:45],
		"payload only": packet(10, 0)[:40],
	} {
		_, err := NewPacketReader(bytes.NewReader(in)).Next()
		if err == nil || err == io.EOF {
			t.Errorf("%s: Next = %v, want an error", name, err)
		}
	}
}

func FuzzPacketReader(f *testing.F) {
	f.Add(bytes.Join([][]byte{packet(3, 1), packet(0, 2)}, nil))
	f.Add([]byte{0x60, 0, 0, 0, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		pr := NewPacketReader(bytes.NewReader(b))
		total := 0
		for {
			p, err := pr.Next()
			if err != nil {
				if err == io.EOF && total != len(b) {
					t.Fatalf("EOF after %d of %d bytes", total, len(b))
				}
				return
			}
			if p[0]>>4 != 6 || len(p) != ipv6Header+int(binary.BigEndian.Uint16(p[4:])) {
				t.Fatalf("packet of %d bytes does not match its header", len(p))
			}
			total += len(p)
		}
	})
}

func FuzzReadResponse(f *testing.F) {
	var b bytes.Buffer
	WriteFrame(&b, []byte(replyJSON))
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := ReadResponse(bytes.NewReader(in))
		if err != nil {
			return
		}
		if !p.Address.Is6() || !p.ServerAddress.Is6() || p.RSDPort == 0 || p.PrefixLen < 0 || p.PrefixLen > 128 {
			t.Fatalf("accepted bad parameters %+v", p)
		}
		var out bytes.Buffer
		if err := WriteResponse(&out, p); err != nil {
			t.Fatal(err)
		}
		if again, err := ReadResponse(&out); err != nil || again != p {
			t.Fatalf("round trip: %+v, %v", again, err)
		}
	})
}
