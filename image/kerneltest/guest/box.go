package main

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/startup"
	"github.com/openlolo/openlolo/sdk"
	boxtls "github.com/openlolo/openlolo/tls"
)

// The box's own binary in the guest (make arm64's static build, copied in
// by kerneltest), run as a person runs it: `openlolo selftest` and
// `openlolo serve` on loopback. Every serve uses one address, so a
// client paired with the first box (same state folder, so same
// certificate and grants) reaches the next one with its stored token.
const (
	openloloBin    = "/bin/openlolo"
	boxLAN         = "127.0.0.1:8443"
	boxURL         = "https://" + boxLAN
	boxPassphrase  = "kernel test passphrase"
	serveReadyWait = 90 * time.Second
)

// servedBox is one `openlolo serve` in the guest.
type servedBox struct {
	fingerprint string
	setupCode   string // "" once the box is claimed
	cmd         *exec.Cmd
	log         string // its standard error, a file
	done        chan error
	stopOnce    sync.Once
	stopErr     error
}

// startServe runs openlolo serve on state with phoneArgs and waits for its
// start-up lines.
func startServe(ctx context.Context, state string, phoneArgs ...string) (*servedBox, error) {
	b := &servedBox{log: state + ".log", done: make(chan error, 1)}
	logf, err := os.Create(b.log)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	b.cmd = exec.Command(openloloBin, append([]string{"serve", "--state", state, "--lan", boxLAN}, phoneArgs...)...)
	b.cmd.Stderr = logf
	out, err := b.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := b.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s serve: %w", openloloBin, err)
	}
	up := make(chan error, 1)
	go func() {
		l, err := startup.Read(out)
		b.fingerprint, b.setupCode = l.Fingerprint, l.SetupCode
		up <- err
		io.Copy(io.Discard, out) // keep the pipe flowing
	}()
	go func() { b.done <- b.cmd.Wait() }()
	select {
	case err := <-up:
		if err != nil {
			b.stop()
			return nil, fmt.Errorf("%w: %s", err, b.logTail())
		}
		return b, nil
	case err := <-b.done:
		return nil, fmt.Errorf("serve exited before it was up: %v: %s", err, b.logTail())
	case <-time.After(serveReadyWait):
		b.stop()
		return nil, fmt.Errorf("serve printed no start-up lines in %v: %s", serveReadyWait, b.logTail())
	case <-ctx.Done():
		b.stop()
		return nil, ctx.Err()
	}
}

// stop ends the box as a service manager does (SIGTERM) and waits; later
// calls return the first one's answer.
func (b *servedBox) stop() error {
	b.stopOnce.Do(func() {
		b.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case b.stopErr = <-b.done:
		case <-time.After(15 * time.Second):
			// SIGQUIT first: Go prints every goroutine's stack to the
			// log, which says where the box hangs.
			b.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-b.done:
			case <-time.After(5 * time.Second):
				b.cmd.Process.Kill()
			}
			b.stopErr = fmt.Errorf("serve did not stop within 15s of SIGTERM: %s", b.logTail())
		}
	})
	return b.stopErr
}

// logTail is the end of the box's log, on one line.
func (b *servedBox) logTail() string {
	s, _ := os.ReadFile(b.log)
	if len(s) > 1500 {
		s = s[len(s)-1500:]
	}
	return strings.ReplaceAll(strings.TrimSpace(string(s)), "\n", " | ")
}

// pair claims the box as its owner (the setup code, a passphrase) and
// pairs an SDK client through the device flow the owner approves on the
// Access page; the token is kept in store.
func (b *servedBox) pair(ctx context.Context, store *sdk.TokenStore) (*sdk.Client, error) {
	cfg, err := boxtls.ClientConfig(b.fingerprint)
	if err != nil {
		return nil, err
	}
	jar, _ := cookiejar.New(nil)
	owner := &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 60 * time.Second}
	err = guard(func(t testing.TB) error {
		ownertest.Claim(t, owner, boxURL, b.setupCode, boxPassphrase)
		_, err := sdk.Pair(ctx, boxURL, sdk.PairOptions{ClientName: "kerneltest", Store: store,
			Confirm: func(_ context.Context, c *x509.Certificate) (bool, error) {
				return boxtls.FingerprintHex(c) == b.fingerprint, nil
			},
			Prompt: func(_, code, _ string) { ownertest.Approve(t, owner, boxURL, code, ownertest.Life24h) },
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return sdk.Dial(ctx, boxURL, &sdk.Options{Store: store})
}

// checkTB lets the guest use helpers written for tests (ownertest): a
// Fatal panics with a checkFailure, which guard turns into an error.
// ownertest calls nothing else (the embedded nil TB would panic).
type checkTB struct{ testing.TB }

// checkFailure is what a checkTB Fatal panics with.
type checkFailure string

func (checkTB) Helper()                   {}
func (checkTB) Fatal(a ...any)            { panic(checkFailure(fmt.Sprint(a...))) }
func (checkTB) Fatalf(f string, a ...any) { panic(checkFailure(fmt.Sprintf(f, a...))) }

// guard runs f with a checkTB and returns its error, or the failure a
// Fatal raised in it.
func guard(f func(t testing.TB) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			msg, ok := r.(checkFailure)
			if !ok {
				panic(r)
			}
			err = errors.New(string(msg))
		}
	}()
	return f(checkTB{})
}

// runBox runs the box's binary with args and returns what it printed. A
// run past limit (or ctx) gets SIGQUIT, so Go prints every goroutine's
// stack: a hang in the box shows where it is, and the checks after it
// still run.
func runBox(ctx context.Context, limit time.Duration, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, openloloBin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGQUIT) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		fmt.Printf("guest: openlolo %s ran past %v; what it printed:\n%s\n", strings.Join(args, " "), limit, out)
	}
	return out, err
}
