package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestStripTelnet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"plain", []byte("ok\r\n"), "ok\n"},
		{"options", []byte{255, 251, 1, 255, 253, 31, 'h', 'i'}, "hi"},
		{"subnegotiation", append([]byte{255, 250, 31, 0, 80, 0, 24, 255, 240}, "x"...), "x"},
		{"escaped IAC", []byte{'a', 255, 255, 'b'}, "a\xffb"},
		{"unfinished subnegotiation", []byte{'a', 255, 250, 31}, "a"},
	}
	for _, tc := range tests {
		if got := string(stripTelnet(tc.in)); got != tc.want {
			t.Errorf("%s: stripTelnet = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestShellLine(t *testing.T) {
	t.Parallel()
	tests := []struct{ cmd, want string }{
		{"df -k /data", `echo __OL""BEGIN__; { df -k /data ; } 2>&1; echo __OL""END__$?` + "\n"},
		{"sleep 1 &", `echo __OL""BEGIN__; { sleep 1 & } 2>&1; echo __OL""END__$?` + "\n"},
	}
	for _, tc := range tests {
		if got := shellLine(tc.cmd); got != tc.want {
			t.Errorf("shellLine(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
		// the line must be valid sh and print the markers around the output
		out, err := exec.Command("sh", "-c", strings.Replace(tc.want, "df -k /data", "echo hi", 1)).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "__OLBEGIN__") || !endMarker.Match(out) {
			t.Errorf("sh ran %q: %q, %v", tc.want, out, err)
		}
	}
}

// fakeTelnetd is a busybox-telnetd-like server on a real TCP port: option
// negotiation, a prompt, the echo of each line, then sh's output.
func fakeTelnetd(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				c.Write([]byte{255, 251, 1, 255, 251, 3})
				c.Write([]byte("\r\n/ # "))
				line, err := bufio.NewReader(c).ReadString('\n')
				if err != nil {
					return
				}
				c.Write([]byte(strings.ReplaceAll(line, "\n", "\r\n")))
				out, _ := exec.Command("sh", "-c", line).CombinedOutput()
				c.Write(bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n")))
				c.Write([]byte("/ # \x1b[6n"))
				io.Copy(io.Discard, c) // until the client has its answer and hangs up
			}(c)
		}
	}()
	return l.Addr().String()
}

func TestShellRun(t *testing.T) {
	t.Parallel()
	sh := shell{addr: fakeTelnetd(t)}
	ctx := context.Background()
	tests := []struct {
		cmd    string
		out    string
		status int
	}{
		{"echo one; echo two", "one\ntwo", 0},
		{"echo no such thing >&2; false", "no such thing", 1},
		{"touch /proc/x", "", 1},
	}
	for _, tc := range tests {
		out, st, err := sh.run(ctx, tc.cmd)
		if err != nil {
			t.Fatalf("run %q: %v", tc.cmd, err)
		}
		if st != tc.status || (tc.out != "" && out != tc.out) {
			t.Errorf("run %q = %q, %d; want %q, %d", tc.cmd, out, st, tc.out, tc.status)
		}
	}
	dead := shell{addr: "127.0.0.1:1"}
	if _, _, err := dead.run(ctx, "true"); err == nil {
		t.Error("run on a closed port succeeded")
	}
}

func TestTestCmdline(t *testing.T) {
	t.Parallel()
	got := testCmdline("console=tty0 console=ttyS1,115200 root=PARTUUID=12d83444-02 rootfstype=squashfs ro rootwait quiet")
	want := "root=PARTUUID=12d83444-02 rootfstype=squashfs ro rootwait console=ttyAMA0 panic=-1 openlolo.phone=sim openlolo.debug=1"
	if got != want {
		t.Errorf("testCmdline = %q\nwant %q", got, want)
	}
}

func TestConsole(t *testing.T) {
	t.Parallel()
	c := newConsole(nil)
	fmt.Fprintf(c, "[   1.00] LAN URL:      https://openlolo-3bee.local/\n[   1.10] Fingerprint:  ab12\n")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.wait(ctx, "Fingerprint:"); err != nil {
		t.Fatal(err)
	}
	if got := c.value("Fingerprint:"); got != "ab12" {
		t.Errorf("value(Fingerprint:) = %q", got)
	}
	if got := c.value("LAN URL:"); got != "https://openlolo-3bee.local/" {
		t.Errorf("value(LAN URL:) = %q", got)
	}
	if got := c.value("Setup code:"); got != "" {
		t.Errorf("value of a missing key = %q", got)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if _, err := c.wait(short, "never printed"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("wait for a missing line: %v", err)
	}
	if err := consoleHas(c, "LAN URL:", "3bee"); err != nil {
		t.Error(err)
	}
	if err := consoleHas(c, "LAN URL:", "Fingerprint:"); err == nil {
		t.Error("consoleHas matched parts from two lines")
	}
}

func TestFormFields(t *testing.T) {
	t.Parallel()
	page := []byte(`<form method="post" action="/logout"><input type="hidden" name="csrf" value="x"></form>
<form method="post" action="/access/approve">
  <input type="hidden" name="csrf" value="tok&amp;en">
  <input type="hidden" name="handle" value="h1">
  <label><input type="radio" name="life" value="24h" checked> 24 hours</label>
  <label><input type="radio" name="life" value="30d"> 30 days</label>
  <input name="note">
</form>`)
	v, ok := formFields(page, "/access/approve")
	if !ok {
		t.Fatal("form not found")
	}
	if v.Get("csrf") != "tok&en" || v.Get("handle") != "h1" || v.Get("life") != "24h" || v.Has("note") {
		t.Errorf("fields = %v", v)
	}
	if _, ok := formFields(page, "/claim"); ok {
		t.Error("found a form that is not there")
	}
}

func TestResults(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	r := &results{out: &b}
	r.check("a", nil)
	r.check("b", errors.New("broken"))
	r.check("c", fmt.Errorf("POST /mcp: %w", errNotServed))
	want := "1 passed, 1 failed (1 skipped: not served by this box yet)\nfailed: b"
	if got := r.summary(); got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	if !strings.Contains(b.String(), "PASS a\nFAIL b: broken\nSKIP c:") {
		t.Errorf("lines = %q", b.String())
	}
}

func TestPrintkTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		want time.Duration
		ok   bool
	}{
		{"[    8.387120] list_del corruption.", 8387120 * time.Microsecond, true},
		{"[    0.000000] Booting Linux on physical CPU 0x0", 0, true},
		{"[12345.000001] x", 12345*time.Second + time.Microsecond, true},
		{"LAN URL: https://x.local/", 0, false},
		{"[   1.0] short fraction", 0, false},
		{"[ abc.123456] not a number", 0, false},
		{"[    1.000000 no bracket", 0, false},
	} {
		got, ok := printkTime(tc.line)
		if got != tc.want || ok != tc.ok {
			t.Errorf("printkTime(%q) = %v, %v; want %v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

// TestConsoleKernelStart: the kernel's start is the earliest estimate
// from its timestamped lines; without one there is none.
func TestConsoleKernelStart(t *testing.T) {
	t.Parallel()
	c := newConsole(nil)
	if _, ok := c.kernelStart(); ok {
		t.Fatal("a kernel start before any kernel line")
	}
	before := time.Now()
	fmt.Fprintf(c, "[   0.50] [    3.000000] late line\n[   0.60] Fingerprint:  ab12\n")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.wait(ctx, "Fingerprint:"); err != nil {
		t.Fatal(err)
	}
	k, ok := c.kernelStart()
	if !ok || k.After(before.Add(-3*time.Second+time.Second)) || k.Before(before.Add(-4*time.Second)) {
		t.Errorf("kernel start = %v (ok %v), want about 3 s before %v", k, ok, before)
	}
}
