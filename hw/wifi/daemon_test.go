package wifi

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// daemon is a stand-in for wpa_supplicant's control socket: a real Unix
// datagram socket that answers commands with reply and, on SELECT_NETWORK,
// sends the scripted events to the attached clients.
type daemon struct {
	t      *testing.T
	conn   *net.UnixConn
	path   string
	mu     sync.Mutex
	got    []string
	events []string // sent after SELECT_NETWORK or SCAN
	reply  func(cmd string) string
	attach []*net.UnixAddr
}

func startDaemon(t *testing.T, reply func(string) string, events ...string) *daemon {
	t.Helper()
	dir, err := os.MkdirTemp("", "wifi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	d := &daemon{t: t, path: filepath.Join(dir, "wlan0"), reply: reply, events: events}
	d.conn, err = net.ListenUnixgram("unixgram", &net.UnixAddr{Name: d.path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.conn.Close() })
	go d.serve()
	return d
}

func (d *daemon) serve() {
	buf := make([]byte, 4096)
	for {
		n, from, err := d.conn.ReadFromUnix(buf)
		if err != nil {
			return
		}
		cmd := string(buf[:n])
		d.mu.Lock()
		d.got = append(d.got, cmd)
		d.mu.Unlock()
		var r string
		switch {
		case cmd == "ATTACH":
			d.attach = append(d.attach, from)
			r = "OK\n"
		case cmd == "DETACH":
			r = "OK\n"
		default:
			r = d.reply(cmd)
		}
		d.conn.WriteToUnix([]byte(r), from)
		if strings.HasPrefix(cmd, "SELECT_NETWORK") || cmd == "SCAN" {
			for _, ev := range d.events {
				for _, a := range d.attach {
					d.conn.WriteToUnix([]byte("<3>"+ev), a)
				}
			}
		}
	}
}

func (d *daemon) commands() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.got...)
}

func supplicantReply(cmd string) string {
	switch {
	case cmd == "ADD_NETWORK":
		return "2\n"
	case strings.HasPrefix(cmd, "SET_NETWORK"), strings.HasPrefix(cmd, "SELECT_NETWORK"), strings.HasPrefix(cmd, "ENABLE_NETWORK"),
		strings.HasPrefix(cmd, "REMOVE_NETWORK"), cmd == "SAVE_CONFIG", cmd == "SCAN":
		return "OK\n"
	}
	return "UNKNOWN COMMAND\n"
}

func newSupplicant(d *daemon) *Supplicant {
	return &Supplicant{Ctrl: Ctrl{Path: d.path, LocalDir: filepath.Dir(d.path)}}
}

func TestJoinOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []string
		want   error // nil: joined
	}{
		{"connected", []string{"CTRL-EVENT-SCAN-RESULTS ", "CTRL-EVENT-CONNECTED - Connection to a4:2b:b0:11:22:33 completed [id=2 id_str=]"}, nil},
		{"wrong key", []string{`CTRL-EVENT-SSID-TEMP-DISABLED id=2 ssid="home" auth_failures=1 duration=10 reason=WRONG_KEY`}, ErrWrongKey},
		{"not found", []string{"CTRL-EVENT-NETWORK-NOT-FOUND", "CTRL-EVENT-NETWORK-NOT-FOUND", "CTRL-EVENT-NETWORK-NOT-FOUND"}, ErrNotFound},
		{"rejected", []string{"CTRL-EVENT-ASSOC-REJECT bssid=a4:2b:b0:11:22:33 status_code=17"}, ErrAuthFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startDaemon(t, supplicantReply, tc.events...)
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			id, err := newSupplicant(d).Join(ctx, "home", `pass "word"1`)
			if id != "2" || !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Join = %q, %v; want id 2, %v", id, err, tc.want)
			}
			cmds := strings.Join(d.commands(), "\n")
			for _, want := range []string{"ADD_NETWORK", "SET_NETWORK 2 ssid 686f6d65", "SET_NETWORK 2 scan_ssid 1",
				"SET_NETWORK 2 key_mgmt WPA-PSK SAE", `SET_NETWORK 2 psk "pass "word"1"`, "SELECT_NETWORK 2"} {
				if !strings.Contains(cmds, want) {
					t.Errorf("commands lack %q:\n%s", want, cmds)
				}
			}
		})
	}
}

func TestJoinOpenNetworkAndTimeout(t *testing.T) {
	d := startDaemon(t, supplicantReply, "CTRL-EVENT-NETWORK-NOT-FOUND")
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	// One scan without it, then the time is up: not found.
	if _, err := newSupplicant(d).Join(ctx, "open-cafe", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Join = %v, want ErrNotFound", err)
	}
	if cmds := strings.Join(d.commands(), "\n"); !strings.Contains(cmds, "SET_NETWORK 2 key_mgmt NONE") || strings.Contains(cmds, "psk") {
		t.Fatalf("open network commands:\n%s", cmds)
	}
	d2 := startDaemon(t, supplicantReply)
	ctx2, cancel2 := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel2()
	if _, err := newSupplicant(d2).Join(ctx2, "home", "password1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("silent join = %v, want the deadline", err)
	}
}

func TestJoinRefusesWhatWouldBreakTheCommand(t *testing.T) {
	d := startDaemon(t, supplicantReply)
	s := newSupplicant(d)
	for _, tc := range [][2]string{{"", "password1"}, {strings.Repeat("a", 33), "password1"}, {"home", "pass\nSAVE_CONFIG"}} {
		if _, err := s.Join(t.Context(), tc[0], tc[1]); err == nil {
			t.Errorf("Join(%q, %q) succeeded", tc[0], tc[1])
		}
	}
	if cmds := d.commands(); len(cmds) != 0 {
		t.Fatalf("refused joins sent %q", cmds)
	}
}

func TestScanStatusKeepForget(t *testing.T) {
	scan, _ := os.ReadFile("testdata/scan_results.txt")
	status, _ := os.ReadFile("testdata/status.txt")
	d := startDaemon(t, func(cmd string) string {
		switch cmd {
		case "SCAN_RESULTS":
			return string(scan)
		case "STATUS":
			return string(status)
		}
		return supplicantReply(cmd)
	}, "CTRL-EVENT-SCAN-STARTED ", "CTRL-EVENT-SCAN-RESULTS ")
	s := newSupplicant(d)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	nets, err := s.Scan(ctx)
	if err != nil || len(nets) != 7 || nets[0].SSID != "home" {
		t.Fatalf("Scan = %+v, %v", nets, err)
	}
	st, err := s.Status(ctx)
	if err != nil || st.State != "COMPLETED" || st.SSID != "home" {
		t.Fatalf("Status = %+v, %v", st, err)
	}
	if err := s.Keep(ctx, "2"); err != nil {
		t.Fatal(err)
	}
	if err := s.Forget(ctx, "3"); err != nil {
		t.Fatal(err)
	}
	cmds := strings.Join(d.commands(), "\n")
	for _, want := range []string{"SCAN\n", "SCAN_RESULTS", "STATUS", "ENABLE_NETWORK all\nSAVE_CONFIG", "REMOVE_NETWORK 3\nENABLE_NETWORK all"} {
		if !strings.Contains(cmds, want) {
			t.Errorf("commands lack %q:\n%s", want, cmds)
		}
	}
}

func TestCtrlFailReply(t *testing.T) {
	d := startDaemon(t, func(string) string { return "FAIL\n" })
	if _, err := newSupplicant(d).Status(t.Context()); err == nil {
		t.Fatal("Status succeeded on FAIL")
	}
	if _, err := (&Ctrl{Path: filepath.Join(t.TempDir(), "none")}).Request(t.Context(), "PING"); err == nil {
		t.Fatal("request to no socket succeeded")
	}
}
