package sdk_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/sdk"
	boxtls "github.com/openlolo/openlolo/tls"
)

// The examples run against a real box: appliance.Box on the simulated
// phone, real HTTPS on 127.0.0.1:0, a temporary state folder, and an owner
// who claims it and approves pairing requests on its box page the way a
// browser does. Only this external test package imports the appliance;
// package sdk itself imports api and tls alone.

// exampleBox is one running box for an example.
type exampleBox struct {
	// URL is the box's LAN address (https://127.0.0.1:PORT).
	URL string
	// Fingerprint is its certificate's SHA-256, as the console prints it.
	Fingerprint string
	// Store is a token store in the temporary folder.
	Store *sdk.TokenStore
	// Phone is the simulated phone, to show what the examples did (the
	// first, sim-1, of a box with several).
	Phone *sim.Phone
	// Phones are all its simulated phones, sim-1 first.
	Phones []*sim.Phone

	owner *http.Client
	dir   string
	stop  func() error
}

const examplePassphrase = "correct horse battery"

// startExampleBox starts and claims a box; Close stops it and removes its
// folder. A failure panics, which fails the example.
func startExampleBox() *exampleBox { return startBoxOf("openlolo-ex01", 1) }

// startBoxOf is startExampleBox for a box named name with sims simulated
// phones (sim-1 .. sim-N, as serve --sims N).
func startBoxOf(name string, sims int) *exampleBox {
	dir, err := os.MkdirTemp("", "openlolo-sdk-example-")
	must(err)
	var (
		phs      []*sim.Phone
		attached []control.Attached
	)
	closePhones := func() {
		for _, ph := range phs {
			ph.Close()
		}
	}
	for i := 1; i <= sims; i++ {
		ph, err := sim.New(sim.Options{})
		must(err)
		phs = append(phs, ph)
		attached = append(attached, control.Attached{ID: fmt.Sprintf("sim-%d", i), Phone: ph})
	}
	cfg := appliance.Config{
		StateDir: filepath.Join(dir, "state"),
		Name:     name,
		Version:  "example",
		Phone:    phs[0],
		LANAddr:  "127.0.0.1:0",
	}
	if sims > 1 {
		cfg.Phones = attached
	}
	lines := newLineWriter("Setup code:")
	cfg.Out = lines
	ctx, cancel := context.WithCancel(context.Background())
	box, err := appliance.New(ctx, cfg)
	if err != nil {
		cancel()
		closePhones()
		panic(err)
	}
	done := make(chan error, 1)
	go func() { done <- box.Run(ctx) }()
	b := &exampleBox{
		URL:         strings.TrimSuffix(box.LANURL(), "/"),
		Fingerprint: box.Cert().Fingerprint(),
		Store:       &sdk.TokenStore{Path: filepath.Join(dir, "boxes.json")},
		Phone:       phs[0],
		Phones:      phs,
		dir:         dir,
	}
	b.stop = func() error {
		cancel()
		var err error
		select {
		case err = <-done:
		case <-time.After(15 * time.Second):
			err = fmt.Errorf("the box did not stop within 15 s")
		}
		closePhones()
		lines.w.Close()
		os.RemoveAll(dir)
		return err
	}
	var code string
	select {
	case code = <-lines.found:
	case err := <-done:
		panic(fmt.Sprintf("the box stopped before printing its setup code: %v", err))
	case <-time.After(30 * time.Second):
		panic("the box printed no setup code within 30 s")
	}
	tlsCfg, err := boxtls.ClientConfig(b.Fingerprint)
	must(err)
	jar, err := cookiejar.New(nil)
	must(err)
	b.owner = &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: tlsCfg}}
	ownertest.Claim(panicTB{}, b.owner, b.URL, code, examplePassphrase)
	return b
}

// startPairedBox starts a box and pairs this client with it (the
// certificate pinned, both scopes, approved by the owner) in b.Store.
func startPairedBox() *exampleBox {
	b := startExampleBox()
	b.Pair(b.Store)
	return b
}

// Pair pairs a client with the box in store (the certificate pinned,
// both scopes, approved by the owner).
func (b *exampleBox) Pair(store *sdk.TokenStore) {
	_, err := sdk.Pair(context.Background(), b.URL, sdk.PairOptions{
		ClientName: "example.go",
		Pin:        b.Fingerprint,
		Store:      store,
		Prompt:     func(_, code, _ string) { b.Approve(code) },
		// The owner approved before the first poll, which the box answers
		// at once: no need to wait the interval first.
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
	must(err)
}

// Approve approves the pending request with userCode as the owner on the
// box page (Access), for 30 days.
func (b *exampleBox) Approve(userCode string) {
	ownertest.Approve(panicTB{}, b.owner, b.URL, userCode, ownertest.Life30d)
}

// Close stops the box and removes its folder.
func (b *exampleBox) Close() {
	must(b.stop())
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// panicTB is the testing.TB that ownertest reports through, for examples,
// which have none: a failure panics (and fails the example).
type panicTB struct{ testing.TB }

func (panicTB) Helper()                           {}
func (panicTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (panicTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (panicTB) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// lineWriter receives the box's start-up lines and sends the rest of the
// first line that starts with prefix on found.
type lineWriter struct {
	w     *io.PipeWriter
	found chan string
}

func newLineWriter(prefix string) *lineWriter {
	r, w := io.Pipe()
	lw := &lineWriter{w: w, found: make(chan string, 1)}
	go func() {
		sc := bufio.NewScanner(r)
		sent := false
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok && !sent {
				lw.found <- strings.TrimSpace(rest)
				sent = true
			}
		}
	}()
	return lw
}

func (lw *lineWriter) Write(p []byte) (int, error) { return lw.w.Write(p) }
