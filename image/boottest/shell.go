package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// shell is the box's debug root shell (busybox telnetd on TCP 23, started
// only with openlolo.debug=1), reached through QEMU's port forward.
type shell struct {
	addr string
}

// endMarker is printed after each command with its exit status; the
// command line spells the markers split ("__OL""END__") so the terminal's
// echo of it does not match.
var endMarker = regexp.MustCompile(`__OLEND__(\d+)`)

// run runs cmd on the box and returns its output and exit status.
func (s shell) run(ctx context.Context, cmd string) (string, int, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return "", -1, fmt.Errorf("shell: dial %s: %w", s.addr, err)
	}
	defer conn.Close()
	dl := time.Now().Add(time.Minute)
	if d, ok := ctx.Deadline(); ok && d.Before(dl) {
		dl = d
	}
	conn.SetDeadline(dl)
	line := shellLine(cmd)
	if _, err := conn.Write([]byte(line)); err != nil {
		return "", -1, fmt.Errorf("shell: send: %w", err)
	}
	var got []byte
	buf := make([]byte, 4096)
	for {
		n, err := conn.Read(buf)
		got = append(got, buf[:n]...)
		clean := stripTelnet(got)
		if m := endMarker.FindSubmatchIndex(clean); m != nil {
			status, _ := strconv.Atoi(string(clean[m[2]:m[3]]))
			return shellOutput(string(clean[:m[0]])), status, nil
		}
		if err != nil {
			return string(clean), -1, fmt.Errorf("shell: %q: %w", cmd, err)
		}
	}
}

// shellLine is the one input line that runs cmd between the markers. One
// line, so the terminal's echo of it comes before any output; a cmd that
// ends in "&" takes no ";" after it.
func shellLine(cmd string) string {
	sep := " ;"
	if strings.HasSuffix(strings.TrimSpace(cmd), "&") {
		sep = ""
	}
	return "echo __OL\"\"BEGIN__; { " + cmd + sep + " } 2>&1; echo __OL\"\"END__$?\n"
}

// stripTelnet removes telnet option negotiation (IAC sequences) and CRs.
func stripTelnet(b []byte) []byte {
	const iac, sb, se = 255, 250, 240
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == iac && i+1 < len(b) && b[i+1] == iac:
			out = append(out, iac)
			i++
		case c == iac && i+1 < len(b) && b[i+1] == sb:
			j := bytes.Index(b[i:], []byte{iac, se})
			if j < 0 {
				return out
			}
			i += j + 1
		case c == iac && i+1 < len(b) && b[i+1] >= 251 && b[i+1] <= 254:
			i += 2
		case c == iac:
			i++
		case c == '\r':
		default:
			out = append(out, c)
		}
	}
	return out
}

// shellOutput returns what the command printed: the text after the
// begin marker's own line (the echoed command line spells it split).
func shellOutput(raw string) string {
	if i := strings.LastIndex(raw, "__OLBEGIN__\n"); i >= 0 {
		raw = raw[i+len("__OLBEGIN__\n"):]
	}
	return strings.TrimSpace(raw)
}
