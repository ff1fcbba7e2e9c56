package adb_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/adb"
	"github.com/openlolo/openlolo/hw/adb/adbtest"
)

// phoneHandler answers a few commands as an Android shell would.
func phoneHandler(screen []byte) adbtest.Handler {
	return func(ctx context.Context, line string, stdout, stderr io.Writer) int {
		switch {
		case strings.HasPrefix(line, "echo "):
			fmt.Fprintln(stdout, strings.TrimPrefix(line, "echo "))
			return 0
		case line == "screencap":
			stdout.Write(screen)
			return 0
		case strings.HasPrefix(line, "exit "):
			var code int
			fmt.Sscan(strings.TrimPrefix(line, "exit "), &code)
			fmt.Fprintln(stderr, "bye")
			return code
		case line == "sleep":
			<-ctx.Done()
			return 1
		}
		fmt.Fprintf(stderr, "/system/bin/sh: %s: not found\n", line)
		return 127
	}
}

// allowingDevice is a fake phone whose owner allows every key; asked
// lists the fingerprints the owner was asked about.
func allowingDevice(screen []byte) (d *adbtest.Device, asked func() []string) {
	var mu sync.Mutex
	var fps []string
	d = &adbtest.Device{
		Serial: "fake1", Model: "Pixel_Fake", Product: "fake", DeviceName: "fake",
		Allow: func(fp string) bool {
			mu.Lock()
			fps = append(fps, fp)
			mu.Unlock()
			return true
		},
		Handler: phoneHandler(screen),
	}
	return d, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), fps...)
	}
}

// startDevice serves d on a loopback port until the test ends.
func startDevice(t *testing.T, d *adbtest.Device) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return l.Addr().String()
}

func newKey(t *testing.T) *adb.Key {
	t.Helper()
	k, err := adb.LoadOrCreateKey(filepath.Join(t.TempDir(), "adbkey"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestClientAllowedOnceThenKnown(t *testing.T) {
	t.Parallel()
	screen := bytes.Repeat([]byte("0123456789abcdef"), 300_000) // 4.8 MB
	d, asked := allowingDevice(screen)
	d.MaxData = 4096 // many messages, each acknowledged
	addr := startDevice(t, d)
	key := newKey(t)
	ctx := context.Background()

	var pending []string
	c, err := adb.DialTCP(ctx, addr, adb.ClientConfig{Key: key, AuthPending: func(fp string) { pending = append(pending, fp) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if a := asked(); len(pending) != 1 || pending[0] != key.Fingerprint() || len(a) != 1 || a[0] != key.Fingerprint() {
		t.Fatalf("first connection: box said pending %v, phone asked %v; want both once with %s", pending, a, key.Fingerprint())
	}
	if c.Property("ro.product.model") != "Pixel_Fake" || !c.HasFeature("shell_v2") || c.MaxData() != 4096 {
		t.Fatalf("banner %q, max data %d", c.Banner(), c.MaxData())
	}

	res, err := c.Shell(ctx, "echo héllo wörld")
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "héllo wörld\n" || res.ExitCode != 0 || len(res.Stderr) != 0 {
		t.Fatalf("echo: %+v", res)
	}
	res, err = c.Shell(ctx, "exit 3")
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || string(res.Stderr) != "bye\n" {
		t.Fatalf("exit 3: code %d stderr %q", res.ExitCode, res.Stderr)
	}
	out, err := c.Exec(ctx, "screencap")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, screen) {
		t.Fatalf("exec screencap: %d bytes, want %d equal bytes", len(out), len(screen))
	}

	// Several streams at once on one connection.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.Shell(ctx, fmt.Sprintf("echo %d", i))
			if err == nil && string(res.Stdout) != fmt.Sprintf("%d\n", i) {
				err = fmt.Errorf("stream %d got %q", i, res.Stdout)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	// The phone now knows the key: a new connection signs and is let in
	// without asking.
	c2, err := adb.DialTCP(ctx, addr, adb.ClientConfig{Key: key, AuthPending: func(string) { t.Error("asked again for a known key") }})
	if err != nil {
		t.Fatal(err)
	}
	c2.Close()
	if n := len(asked()); n != 1 || d.Connections() != 2 {
		t.Fatalf("phone asked %d times over %d connections, want 1 over 2", n, d.Connections())
	}
	want := []adbtest.Command{{Service: "shell", Line: "echo héllo wörld"}, {Service: "shell", Line: "exit 3"}, {Service: "exec", Line: "screencap"}}
	if got := d.Commands()[:3]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("phone ran %v, want %v first", got, want)
	}
}

func TestClientRefused(t *testing.T) {
	t.Parallel()
	addr := startDevice(t, &adbtest.Device{Allow: func(string) bool { return false }})
	_, err := adb.DialTCP(context.Background(), addr, adb.ClientConfig{Key: newKey(t)})
	if !errors.Is(err, adb.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
}

// A phone whose owner has not answered yet: the handshake waits (here
// until the caller gives up, right after the box was told the owner is
// being asked) and says the key is not allowed.
func TestClientPendingUntilCancel(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	addr := startDevice(t, &adbtest.Device{Allow: func(string) bool { <-release; return false }})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pending := false
	_, err := adb.DialTCP(ctx, addr, adb.ClientConfig{Key: newKey(t), AuthPending: func(string) { pending = true; cancel() }})
	if !pending || !errors.Is(err, adb.ErrUnauthorized) || !errors.Is(err, context.Canceled) {
		t.Fatalf("pending %v, err %v; want the owner asked, then ErrUnauthorized and the cancel", pending, err)
	}
}

func TestServicesAndCancel(t *testing.T) {
	t.Parallel()
	d := &adbtest.Device{NoAuth: true, Handler: phoneHandler(nil), Features: []string{"cmd"}}
	addr := startDevice(t, d)
	c, err := adb.DialTCP(context.Background(), addr, adb.ClientConfig{Key: newKey(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	if _, err := c.Open(context.Background(), "nosuch:thing"); !errors.Is(err, adb.ErrRefused) {
		t.Fatalf("open an unknown service: %v, want ErrRefused", err)
	}
	// Without shell_v2 the old shell service runs the command; no status.
	res, err := c.Shell(context.Background(), "echo old")
	if err != nil || string(res.Stdout) != "old\n" || res.ExitCode != -1 {
		t.Fatalf("shell v1: %+v, %v", res, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := c.Exec(ctx, "sleep"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("exec past its deadline: %v", err)
	}
	// The connection still works after a cancelled stream.
	if out, err := c.Exec(context.Background(), "echo still"); err != nil || string(out) != "still\n" {
		t.Fatalf("after a cancel: %q, %v", out, err)
	}
}

func TestPeerGoesAway(t *testing.T) {
	t.Parallel()
	host, dev := net.Pipe()
	devCtx, cancel := context.WithCancel(context.Background())
	d := &adbtest.Device{NoAuth: true, Handler: phoneHandler(nil)}
	done := make(chan struct{})
	go func() { d.ServeConn(devCtx, dev); close(done) }()
	c, err := adb.Client(context.Background(), host, adb.ClientConfig{Key: newKey(t)})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the connection did not end when the phone went away")
	}
	if !errors.Is(c.Err(), adb.ErrClosed) {
		t.Fatalf("Err = %v, want ErrClosed", c.Err())
	}
	if _, err := c.Shell(context.Background(), "echo x"); err == nil {
		t.Fatal("a shell ran on a closed connection")
	}
}
