// Package adbtest is a fake Android device that speaks ADB's device side
// over TCP, for tests: real adb clients (Debian's adb) and the box's own
// host side (package adb) connect to it. It checks the host's key as
// adbd does, asks a stand-in owner to allow unknown keys, and runs shell
// and exec commands through a handler the test gives.
package adbtest

import (
	"context"
	"crypto/rsa"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"

	"github.com/openlolo/openlolo/hw/adb"
)

// Command is one command the device ran, as a test sees it.
type Command struct {
	Service string // "shell", "exec"
	Line    string // the command line
}

// Handler runs a command on the fake device: it writes the command's
// output to stdout and stderr and returns its exit status.
type Handler func(ctx context.Context, line string, stdout, stderr io.Writer) int

// Device is a fake Android device. Set its fields before Serve.
type Device struct {
	// Serial, Model, Product and DeviceName fill the CNXN banner.
	Serial, Model, Product, DeviceName string
	// Features overrides the banner's features (default: shell_v2, cmd).
	Features []string
	// NoAuth lets every host in without AUTH (a device with
	// ro.adb.secure=0).
	NoAuth bool
	// Allow is the owner's answer to "Allow USB debugging?" for a new
	// key; nil refuses every new key. Allowed keys are remembered.
	Allow func(fingerprint string) bool
	// Handler runs shell and exec commands; nil answers every command
	// with exit status 127.
	Handler Handler
	// MaxData is the most data per message the device takes (0: adb's
	// 1 MiB).
	MaxData uint32
	// Log receives the device's own log lines; nil discards them.
	Log *slog.Logger

	mu       sync.Mutex
	keys     []*rsa.PublicKey
	commands []Command
	conns    int
}

// Commands returns the commands the device ran, in order.
func (d *Device) Commands() []Command {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Command(nil), d.commands...)
}

// Keys returns the host keys the device has allowed.
func (d *Device) Keys() []*rsa.PublicKey {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*rsa.PublicKey(nil), d.keys...)
}

// Connections counts the handshakes the device completed.
func (d *Device) Connections() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.conns
}

func (d *Device) banner() string {
	features := d.Features
	if features == nil {
		features = []string{"shell_v2", "cmd"}
	}
	return fmt.Sprintf("device::ro.product.name=%s;ro.product.model=%s;ro.product.device=%s;features=%s",
		d.Product, d.Model, d.DeviceName, strings.Join(features, ","))
}

func (d *Device) log() *slog.Logger {
	if d.Log != nil {
		return d.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Serve accepts connections on l until ctx ends or l fails.
func (d *Device) Serve(ctx context.Context, l net.Listener) error {
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		nc, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.ServeConn(ctx, nc)
		}()
	}
}

// ServeConn runs one host connection on rw (a TCP connection, or a
// FunctionFS endpoint pair) until it ends.
func (d *Device) ServeConn(ctx context.Context, rw io.ReadWriteCloser) {
	cfg := adb.ServerConfig{Banner: d.banner(), MaxData: d.MaxData, Offers: offers}
	if !d.NoAuth {
		cfg.Known = d.Keys
		cfg.Allow = func(pub *rsa.PublicKey) bool {
			if d.Allow == nil || !d.Allow(adb.Fingerprint(pub)) {
				return false
			}
			d.mu.Lock()
			d.keys = append(d.keys, pub)
			d.mu.Unlock()
			return true
		}
	}
	c, err := adb.Server(ctx, rw, cfg)
	if err != nil {
		d.log().Info("adbtest: handshake failed", "err", err)
		return
	}
	defer c.Close()
	d.mu.Lock()
	d.conns++
	d.mu.Unlock()
	for {
		s, err := c.Accept(ctx)
		if err != nil {
			return
		}
		go d.serveStream(ctx, s)
	}
}

// offers is what the fake serves: shell (v1 and v2) and exec.
func offers(service string) bool {
	kind, _, ok := strings.Cut(service, ":")
	name, _, _ := strings.Cut(kind, ",")
	return ok && (name == "shell" || name == "exec")
}

func (d *Device) serveStream(ctx context.Context, s *adb.Stream) {
	defer s.Close()
	service := s.Service()
	kind, line, ok := strings.Cut(service, ":")
	if !ok {
		d.log().Info("adbtest: unknown service", "service", service)
		return
	}
	name, opts, _ := strings.Cut(kind, ",")
	v2 := false
	for _, o := range strings.Split(opts, ",") {
		if o == "v2" {
			v2 = true
		}
	}
	switch name {
	case "exec":
		d.record("exec", line)
		d.run(ctx, line, s, io.Discard)
	case "shell":
		d.record("shell", line)
		if !v2 {
			d.run(ctx, line, s, s)
			return
		}
		stdout := &packetWriter{s: s, id: adb.ShellStdout}
		stderr := &packetWriter{s: s, id: adb.ShellStderr}
		code := d.run(ctx, line, stdout, stderr)
		adb.WriteShellPacket(s, adb.ShellExit, []byte{byte(code)})
	default:
		d.log().Info("adbtest: unknown service", "service", service)
	}
}

func (d *Device) record(service, line string) {
	d.mu.Lock()
	d.commands = append(d.commands, Command{Service: service, Line: line})
	d.mu.Unlock()
}

func (d *Device) run(ctx context.Context, line string, stdout, stderr io.Writer) int {
	if d.Handler == nil {
		fmt.Fprintf(stderr, "/system/bin/sh: %s: not found\n", line)
		return 127
	}
	return d.Handler(ctx, line, stdout, stderr)
}

// packetWriter frames what it is given as shell protocol v2 packets.
type packetWriter struct {
	s  io.Writer
	id byte
}

func (w *packetWriter) Write(p []byte) (int, error) {
	// A packet's data is bounded by the connection's max data less the
	// 5-byte packet header; 4 KiB pieces fit every version.
	const piece = adb.MaxPayloadV1 - 5
	n := 0
	for len(p) > 0 {
		k := min(len(p), piece)
		if err := adb.WriteShellPacket(w.s, w.id, p[:k]); err != nil {
			return n, err
		}
		n += k
		p = p[k:]
	}
	return n, nil
}
