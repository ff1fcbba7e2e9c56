package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/openlolo/openlolo/appliance/startup"
)

// child is one `openlolo serve` under measurement.
type child struct {
	cmd   *exec.Cmd
	url   string // https://127.0.0.1:port
	pin   string // the SPKI pin it printed
	setup string // the setup code it printed
	done  chan error
}

// startBox starts bin serve on the sim with its state in dir (and serve's
// flags extra) and waits for its start-up lines.
func startBox(ctx context.Context, bin, dir string, extra ...string) (*child, error) {
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--state", dir, "--lan", "127.0.0.1:0", "--phone", "sim"}, extra...)...)
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s serve: %w", bin, err)
	}
	c := &child{cmd: cmd, done: make(chan error, 1)}
	up := make(chan error, 1)
	go func() {
		l, err := startup.Read(out)
		c.url, c.pin, c.setup = strings.TrimSuffix(l.URL, "/"), l.SPKIPin, l.SetupCode
		up <- err
		io.Copy(io.Discard, out) // keep the pipe flowing
	}()
	go func() { c.done <- cmd.Wait() }()
	select {
	case err := <-up:
		if err != nil {
			c.stop()
			return nil, fmt.Errorf("serve: %w", err)
		}
	case err := <-c.done:
		return nil, fmt.Errorf("serve exited before it was up: %v", err)
	case <-time.After(2 * time.Minute):
		c.stop()
		return nil, fmt.Errorf("serve printed no start-up lines in 2 minutes")
	}
	return c, nil
}

// stop ends the box and waits for it.
func (c *child) stop() {
	c.cmd.Process.Signal(os.Interrupt)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-c.done
	}
}

// rss is the box's resident memory in KiB.
func (c *child) rss() (int64, error) { return c.status("VmRSS") }

// anon is the box's resident anonymous memory in KiB (heap and stacks,
// without the binary's file pages, which the kernel can drop).
func (c *child) anon() (int64, error) { return c.status("RssAnon") }

// status reads one kB line of the box's /proc status file.
func (c *child) status(field string) (int64, error) {
	return procStatus(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid), field)
}

// procStatus reads field (e.g. VmRSS) of a /proc status file, in KiB.
func procStatus(path, field string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read RSS: %w", err)
	}
	for l := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(l, []byte(field+":")); ok {
			f := strings.Fields(string(v))
			if len(f) == 0 {
				break
			}
			return strconv.ParseInt(f[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("read RSS: no %s line in %s", field, path)
}
