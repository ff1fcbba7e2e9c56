package adb_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/adb"
)

// realADB runs Debian's adb client with its own server port and home
// folder, so the test neither meets nor leaves an adb server of the
// machine's. It skips where adb is missing, except in CI (scripts/deps.sh
// installs it there).
type realADB struct {
	t    *testing.T
	bin  string
	home string
	port string
}

func newRealADB(t *testing.T) *realADB {
	t.Helper()
	bin, err := exec.LookPath("adb")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("adb is not installed (scripts/deps.sh installs Debian's adb)")
		}
		t.Skip("adb is not installed (apt-get install adb)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	a := &realADB{t: t, bin: bin, home: t.TempDir(), port: port}
	t.Cleanup(func() { a.run(context.Background(), "kill-server") })
	return a
}

func (a *realADB) run(ctx context.Context, args ...string) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.bin, append([]string{"-P", a.port}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+a.home, "ANDROID_SDK_HOME="+a.home, "ADB_MDNS=0", "ADB_MDNS_AUTO_CONNECT=0")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.Bytes(), ee.ExitCode(), nil
	}
	return out.Bytes(), 0, err
}

func (a *realADB) must(args ...string) []byte {
	a.t.Helper()
	out, code, err := a.run(context.Background(), args...)
	if err != nil || code != 0 {
		a.t.Fatalf("adb %s: exit %d, %v: %s", strings.Join(args, " "), code, err, out)
	}
	return out
}

// Debian's adb client against the fake device: the fake speaks ADB as a
// real adbd does (handshake, AUTH with adb's own key, shell v2 with exit
// status, exec with raw bytes), and the key code reads and checks what
// real adb writes and signs.
func TestRealADBAgainstFakeDevice(t *testing.T) {
	a := newRealADB(t)
	screen := bytes.Repeat([]byte{0, 1, 2, 3, 250, 251, 252, 253}, 400_000) // 3.2 MB
	d, asked := allowingDevice(screen)
	serial := startDevice(t, d)

	connect := func() {
		t.Helper()
		// adb connect says "failed to authenticate" while the phone asks
		// its owner (here the fake's Allow), then the transport comes up.
		out := a.must("connect", serial)
		if !strings.Contains(string(out), "connected to "+serial) && !strings.Contains(string(out), "failed to authenticate to "+serial) {
			t.Fatalf("adb connect: %s", out)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if out, code, err := a.run(ctx, "-s", serial, "wait-for-device"); err != nil || code != 0 {
			t.Fatalf("adb wait-for-device: %d %v %s", code, err, out)
		}
	}
	connect()

	if out := a.must("-s", serial, "shell", "echo", "hi"); string(out) != "hi\n" {
		t.Fatalf("adb shell echo hi: %q", out)
	}
	out, code, err := a.run(context.Background(), "-s", serial, "shell", "exit", "3")
	if err != nil || code != 3 || string(out) != "bye\n" {
		t.Fatalf("adb shell exit 3: exit %d, %v, %q; want exit 3 and stderr bye", code, err, out)
	}
	if out := a.must("-s", serial, "exec-out", "screencap"); !bytes.Equal(out, screen) {
		t.Fatalf("adb exec-out screencap: %d bytes, want %d equal bytes", len(out), len(screen))
	}

	// adb made its key in HOME/.android: our parser reads its public key,
	// our encoder writes the same bytes from its private key, and the
	// fingerprint the fake's owner saw is that key's.
	priv, err := os.ReadFile(filepath.Join(a.home, ".android", "adbkey"))
	if err != nil {
		t.Fatal(err)
	}
	pubText, err := os.ReadFile(filepath.Join(a.home, ".android", "adbkey.pub"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := adb.ParseKey(priv)
	if err != nil {
		t.Fatalf("parse adb's own key: %v", err)
	}
	pub, err := adb.ParsePublicKey(pubText)
	if err != nil {
		t.Fatalf("parse adb's adbkey.pub: %v", err)
	}
	raw, _ := base64.StdEncoding.DecodeString(strings.Fields(string(pubText))[0])
	if !bytes.Equal(adb.EncodePublicKey(key.Public()), raw) || pub.N.Cmp(key.Public().N) != 0 {
		t.Fatal("our encoding of adb's key differs from adb's adbkey.pub")
	}
	if a := asked(); len(a) != 1 || a[0] != key.Fingerprint() {
		t.Fatalf("the fake's owner was asked %v, want once for %s", a, key.Fingerprint())
	}

	// A new adb server connects again: it signs the token with the key
	// the fake now knows (our Verify checks adb's signature), and the
	// owner is not asked again.
	a.must("kill-server")
	connect()
	if out := a.must("-s", serial, "shell", "echo", "again"); string(out) != "again\n" {
		t.Fatalf("second connection: %q", out)
	}
	if n := len(asked()); n != 1 || d.Connections() < 2 {
		t.Fatalf("owner asked %d times over %d connections; want once, and a second connection by signature", n, d.Connections())
	}
}
