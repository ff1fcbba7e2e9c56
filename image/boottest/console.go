package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// console collects a VM's serial console lines (vm.Config.Console) and lets
// the test wait for a line.
type console struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
	pw      *io.PipeWriter
	echo    io.Writer
	start   time.Time
	// kernel is the host time the guest kernel started, estimated from
	// its printk timestamps (zero until a timestamped line arrives).
	kernel time.Time
}

// newConsole returns a console; echo, when not nil, gets every line.
func newConsole(echo io.Writer) *console {
	pr, pw := io.Pipe()
	c := &console{changed: make(chan struct{}), pw: pw, echo: echo, start: time.Now()}
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			c.add(sc.Text())
		}
		io.Copy(io.Discard, pr)
	}()
	return c
}

// Write takes console output (vm.Run writes whole lines).
func (c *console) Write(p []byte) (int, error) { return c.pw.Write(p) }

func (c *console) add(line string) {
	// vm.Run prefixes "[ seconds] "; keep the guest's text only
	if i := strings.Index(line, "] "); strings.HasPrefix(line, "[") && i > 0 {
		line = line[i+2:]
	}
	now := time.Now()
	c.mu.Lock()
	if ts, ok := printkTime(line); ok {
		// A line is read some time after the kernel stamped it, so the
		// earliest estimate is the closest to the real start.
		if k := now.Add(-ts); c.kernel.IsZero() || k.Before(c.kernel) {
			c.kernel = k
		}
	}
	c.lines = append(c.lines, line)
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	if c.echo != nil {
		fmt.Fprintf(c.echo, "  | %6.1fs %s\n", time.Since(c.start).Seconds(), line)
	}
}

// kernelStart returns the host time the guest kernel started and
// whether any timestamped kernel line has been seen.
func (c *console) kernelStart() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kernel, !c.kernel.IsZero()
}

// printkTime parses the timestamp of a kernel log line,
// "[   12.345678] text", as the time since the kernel started.
func printkTime(line string) (time.Duration, bool) {
	rest, ok := strings.CutPrefix(line, "[")
	if !ok {
		return 0, false
	}
	stamp, _, ok := strings.Cut(rest, "]")
	if !ok {
		return 0, false
	}
	sec, frac, ok := strings.Cut(strings.TrimSpace(stamp), ".")
	if !ok || len(frac) != 6 {
		return 0, false
	}
	s, err1 := strconv.ParseUint(sec, 10, 32)
	us, err2 := strconv.ParseUint(frac, 10, 32)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(s)*time.Second + time.Duration(us)*time.Microsecond, true
}

// find returns the first line from index from on that contains text, and
// its index; -1 when there is none yet.
func (c *console) find(from int, text string) (string, int, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := from; i < len(c.lines); i++ {
		if strings.Contains(c.lines[i], text) {
			return c.lines[i], i, nil
		}
	}
	return "", -1, c.changed
}

// wait blocks until a line containing text appears (searching all lines
// since the console started) or ctx ends.
func (c *console) wait(ctx context.Context, text string) (string, error) {
	for {
		line, i, ch := c.find(0, text)
		if i >= 0 {
			return line, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return "", fmt.Errorf("console: no line with %q: %w", text, ctx.Err())
		}
	}
}

// text returns the whole log.
func (c *console) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.lines, "\n")
}

// value returns what follows "key" on the first line that has it, trimmed:
// value("Fingerprint:") on "Fingerprint:  ab:cd" is "ab:cd".
func (c *console) value(key string) string {
	line, i, _ := c.find(0, key)
	if i < 0 {
		return ""
	}
	return consoleValue(line, key)
}

func consoleValue(line, key string) string {
	_, v, ok := strings.Cut(line, key)
	if !ok {
		return ""
	}
	return strings.TrimSpace(v)
}
