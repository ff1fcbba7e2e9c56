package wifi

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Security is what a network asks of a client.
type Security string

// Securities, from a scan result's flags.
const (
	SecurityOpen Security = "open"
	SecurityWPA2 Security = "wpa2-personal"
	SecurityWPA3 Security = "wpa3-personal" // SAE only
	SecurityMix  Security = "wpa2-wpa3-personal"
	SecurityEnt  Security = "enterprise" // 802.1X: not joinable from the setup page
	SecurityWEP  Security = "wep"        // refused: broken
)

// Network is one scan result.
type Network struct {
	BSSID    string
	SSID     string // "" for a hidden network
	Freq     int    // MHz
	Signal   int    // dBm
	Security Security
}

// ParseScanResults reads wpa_supplicant's SCAN_RESULTS reply: a header
// line, then "bssid\tfrequency\tsignal level\tflags\tssid" lines. The
// result has one entry per SSID (its strongest access point), strongest
// first; hidden networks come last.
func ParseScanResults(s string) ([]Network, error) {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "bssid /") {
		return nil, fmt.Errorf("wifi: scan results: no header in %.40q", s)
	}
	best := map[string]Network{}
	var hidden []Network
	for _, line := range lines[1:] {
		f := strings.SplitN(line, "\t", 5)
		if len(f) < 4 {
			return nil, fmt.Errorf("wifi: scan results: line %q has %d fields", line, len(f))
		}
		freq, err1 := strconv.Atoi(f[1])
		sig, err2 := strconv.Atoi(f[2])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("wifi: scan results: line %q: %w", line, err)
		}
		n := Network{BSSID: f[0], Freq: freq, Signal: sig, Security: securityOf(f[3])}
		if len(f) == 5 {
			var err error
			if n.SSID, err = Unescape(f[4]); err != nil {
				return nil, fmt.Errorf("wifi: scan results: %w", err)
			}
		}
		if n.SSID == "" || strings.Trim(n.SSID, "\x00") == "" {
			n.SSID = ""
			hidden = append(hidden, n)
			continue
		}
		if b, ok := best[n.SSID]; !ok || n.Signal > b.Signal {
			best[n.SSID] = n
		}
	}
	out := make([]Network, 0, len(best)+len(hidden))
	for _, n := range best {
		out = append(out, n)
	}
	bySignal := func(a, b Network) int {
		if a.Signal != b.Signal {
			return b.Signal - a.Signal
		}
		return strings.Compare(a.SSID, b.SSID)
	}
	slices.SortFunc(out, bySignal)
	slices.SortFunc(hidden, bySignal)
	return append(out, hidden...), nil
}

func securityOf(flags string) Security {
	has := func(s string) bool { return strings.Contains(flags, s) }
	switch {
	case has("EAP"):
		return SecurityEnt
	case has("SAE") && has("PSK"):
		return SecurityMix
	case has("SAE"):
		return SecurityWPA3
	case has("PSK"):
		return SecurityWPA2
	case has("WEP"):
		return SecurityWEP
	}
	return SecurityOpen
}

// Unescape undoes wpa_supplicant's printf_encode (\\, \", \e, \n, \r, \t,
// \xNN), how SSIDs appear in its replies.
func Unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("wifi: unescape %q: ends in a backslash", s)
		}
		i++
		switch s[i] {
		case '\\', '"':
			b.WriteByte(s[i])
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'e':
			b.WriteByte(0x1b)
		case 'x':
			if i+2 >= len(s) {
				return "", fmt.Errorf("wifi: unescape %q: short \\x", s)
			}
			v, err := hex.DecodeString(s[i+1 : i+3])
			if err != nil || len(v) != 1 {
				return "", fmt.Errorf("wifi: unescape %q: bad \\x", s)
			}
			b.WriteByte(v[0])
			i += 2
		default:
			return "", fmt.Errorf("wifi: unescape %q: unknown escape \\%c", s, s[i])
		}
	}
	return b.String(), nil
}

// Status is wpa_supplicant's STATUS reply, the fields the box uses.
type Status struct {
	State     string // wpa_state: COMPLETED when associated
	SSID      string
	BSSID     string
	ID        string // the network's id
	Freq      int
	KeyMgmt   string
	IPAddress netip.Addr // as wpa_supplicant saw it (may lag the kernel)
}

// ParseStatus reads a STATUS reply (key=value lines).
func ParseStatus(s string) (Status, error) {
	var st Status
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return Status{}, fmt.Errorf("wifi: status: line %q is not key=value", line)
		}
		var err error
		switch k {
		case "wpa_state":
			st.State = v
		case "ssid":
			st.SSID, err = Unescape(v)
		case "bssid":
			st.BSSID = v
		case "id":
			st.ID = v
		case "freq":
			st.Freq, err = strconv.Atoi(v)
		case "key_mgmt":
			st.KeyMgmt = v
		case "ip_address":
			st.IPAddress, err = netip.ParseAddr(v)
		}
		if err != nil {
			return Status{}, fmt.Errorf("wifi: status: %s: %w", k, err)
		}
	}
	if st.State == "" {
		return Status{}, errors.New("wifi: status: no wpa_state")
	}
	return st, nil
}

// EventKind is what a wpa_supplicant event says about a join.
type EventKind int

// Event kinds.
const (
	EventOther      EventKind = iota
	EventConnected            // CTRL-EVENT-CONNECTED
	EventWrongKey             // CTRL-EVENT-SSID-TEMP-DISABLED ... reason=WRONG_KEY
	EventNotFound             // CTRL-EVENT-NETWORK-NOT-FOUND
	EventAuthFailed           // CTRL-EVENT-SSID-TEMP-DISABLED for another reason, CTRL-EVENT-ASSOC-REJECT
)

// ParseEvent classifies an event message (without its "<3>" prefix).
func ParseEvent(msg string) EventKind {
	name, rest, _ := strings.Cut(msg, " ")
	switch name {
	case "CTRL-EVENT-CONNECTED":
		return EventConnected
	case "CTRL-EVENT-NETWORK-NOT-FOUND":
		return EventNotFound
	case "CTRL-EVENT-ASSOC-REJECT":
		return EventAuthFailed
	case "CTRL-EVENT-SSID-TEMP-DISABLED":
		for _, f := range strings.Fields(rest) {
			if f == "reason=WRONG_KEY" {
				return EventWrongKey
			}
		}
		return EventAuthFailed
	}
	return EventOther
}

// DefaultGateway reads /proc/net/route and returns iface's default
// gateway.
func DefaultGateway(r io.Reader, iface string) (netip.Addr, error) {
	sc := bufio.NewScanner(r)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue // Iface Destination Gateway Flags ...
		}
		f := strings.Fields(sc.Text())
		if len(f) < 8 || f[0] != iface || f[1] != "00000000" || f[7] != "00000000" {
			continue
		}
		flags, err := strconv.ParseUint(f[3], 16, 16)
		if err != nil || flags&0x3 != 0x3 { // RTF_UP|RTF_GATEWAY
			continue
		}
		gw, err := parseHexIPv4(f[2])
		if err != nil {
			return netip.Addr{}, fmt.Errorf("wifi: route: %w", err)
		}
		return gw, nil
	}
	if err := sc.Err(); err != nil {
		return netip.Addr{}, fmt.Errorf("wifi: route: %w", err)
	}
	return netip.Addr{}, fmt.Errorf("wifi: route: no default route on %s", iface)
}

// parseHexIPv4 reads /proc/net/route's little-endian hex address.
func parseHexIPv4(s string) (netip.Addr, error) {
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil || len(s) != 8 {
		return netip.Addr{}, fmt.Errorf("address %q is not 8 hex digits", s)
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(v))
	return netip.AddrFrom4(b), nil
}

// NeighborAnswers reads /proc/net/arp and reports whether ip on iface
// has a complete entry: it answered ARP, so it is there.
func NeighborAnswers(r io.Reader, iface string, ip netip.Addr) (bool, error) {
	sc := bufio.NewScanner(r)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue // IP address HW type Flags HW address Mask Device
		}
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[5] != iface || f[0] != ip.String() {
			continue
		}
		flags, err := strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 16)
		if err != nil {
			return false, fmt.Errorf("wifi: arp: flags %q: %w", f[2], err)
		}
		return flags&0x2 != 0 && f[3] != "00:00:00:00:00:00", nil // ATF_COM
	}
	return false, sc.Err()
}

// Saved is one of wpa_supplicant's configured networks.
type Saved struct {
	ID       string
	SSID     string
	Current  bool // the network the radio is on
	Disabled bool
}

// ParseNetworks reads a LIST_NETWORKS reply: a header line, then
// "id\tssid\tbssid\tflags" lines (the SSID escaped as in STATUS). Lines
// that do not parse are left out.
func ParseNetworks(s string) []Saved {
	var out []Saved
	for i, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if i == 0 && strings.HasPrefix(line, "network id") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 4 {
			continue
		}
		if _, err := strconv.Atoi(f[0]); err != nil {
			continue
		}
		ssid, err := Unescape(f[1])
		if err != nil {
			continue
		}
		out = append(out, Saved{ID: f[0], SSID: ssid, Current: strings.Contains(f[3], "[CURRENT]"),
			Disabled: strings.Contains(f[3], "[DISABLED]")})
	}
	return out
}
