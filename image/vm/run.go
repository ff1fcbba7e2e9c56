package vm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config says what to boot. Zero values pick the defaults named per field.
type Config struct {
	// QEMU is the emulator binary; "" means qemu-system-aarch64.
	QEMU string
	// Machine is the -M value; "" means virt.
	Machine string
	// CPU is the -cpu value; "" means cortex-a53 (about 3x faster under
	// TCG than max).
	CPU string
	// CPUs is -smp; 0 means 2.
	CPUs int
	// MemoryMiB is -m; 0 means 512.
	MemoryMiB int
	// Kernel is the kernel image (-kernel); required.
	Kernel string
	// Initrd is the initramfs (-initrd); "" means none.
	Initrd string
	// Append is the kernel command line; "" means
	// "console=ttyAMA0 rdinit=/init loglevel=4 panic=-1".
	Append string
	// Disk is a raw image attached as a virtio block device (/dev/vda in
	// the guest); "" means none.
	Disk string
	// Extra are more QEMU arguments, appended last.
	Extra []string
	// Done is the console text that ends the run; "" means DoneMarker.
	// Run waits GraceAfterDone for QEMU to exit after it, then kills it.
	Done string
	// Console, when not nil, receives each console line as it arrives
	// (prefixed with the seconds since start), e.g. for live logs.
	Console io.Writer
}

// GraceAfterDone is how long Run lets QEMU power off after the Done text.
const GraceAfterDone = 10 * time.Second

// Result is a finished boot.
type Result struct {
	// Log is the whole serial console output.
	Log string
	// Status is the exit status printed after DoneMarker, or -1 when the
	// marker has no number (or Done is another text).
	Status int
	// Elapsed is the time from start to the Done text.
	Elapsed time.Duration
}

// Args returns the QEMU command line for c (without the binary).
func (c Config) Args() []string {
	def := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	defi := func(v, d int) int {
		if v == 0 {
			return d
		}
		return v
	}
	a := []string{
		"-M", def(c.Machine, "virt"),
		"-cpu", def(c.CPU, "cortex-a53"),
		"-smp", strconv.Itoa(defi(c.CPUs, 2)),
		"-m", strconv.Itoa(defi(c.MemoryMiB, 512)),
		"-nographic", "-no-reboot",
		"-kernel", c.Kernel,
	}
	if c.Initrd != "" {
		a = append(a, "-initrd", c.Initrd)
	}
	if c.Disk != "" {
		a = append(a, "-drive", "file="+c.Disk+",format=raw,if=none,id=d0",
			"-device", "virtio-blk-device,drive=d0")
	}
	a = append(a, "-append", def(c.Append, "console=ttyAMA0 rdinit=/init loglevel=4 panic=-1"))
	return append(a, c.Extra...)
}

// Run boots c and returns the console log once the Done text appeared and
// QEMU exited (or was killed GraceAfterDone later). It fails when QEMU
// exits before the Done text or ctx ends first (set a deadline on ctx);
// the error then carries the last console lines. Result is returned with
// the log so far in every case.
func Run(ctx context.Context, c Config) (*Result, error) {
	if c.Kernel == "" {
		return nil, errors.New("vm: run: no kernel image given")
	}
	done := c.Done
	if done == "" {
		done = DoneMarker
	}
	bin := c.QEMU
	if bin == "" {
		bin = "qemu-system-aarch64"
	}
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(qctx, bin, c.Args()...)
	cmd.WaitDelay = time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("vm: run %s: %w", bin, notFound(bin, err))
	}
	waitErr := make(chan error, 1)
	go func() { err := cmd.Wait(); pw.Close(); waitErr <- err }()

	res := &Result{Status: -1}
	var (
		mu   sync.Mutex
		log  strings.Builder
		seen = make(chan struct{})
	)
	scanDone := make(chan struct{})
	go func() {
		defer close(scanDone)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		found := false
		for sc.Scan() {
			line := strings.TrimRight(sc.Text(), "\r")
			mu.Lock()
			log.WriteString(line + "\n")
			mu.Unlock()
			if c.Console != nil {
				fmt.Fprintf(c.Console, "[%7.2f] %s\n", time.Since(start).Seconds(), line)
			}
			if !found {
				if i := strings.Index(line, done); i >= 0 {
					found = true
					res.Elapsed = time.Since(start)
					if n, err := strconv.Atoi(strings.TrimSpace(line[i+len(done):])); err == nil && done == DoneMarker {
						res.Status = n
					}
					close(seen)
				}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	logText := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }

	var err error
	select {
	case <-seen:
		select {
		case <-waitErr:
		case <-time.After(GraceAfterDone):
			cancel()
			<-waitErr
		}
	case werr := <-waitErr:
		<-scanDone
		select {
		case <-seen: // the marker came with the last output
		default:
			err = fmt.Errorf("vm: %s exited before %q (%v); console ends:\n%s", bin, done, werr, tail(logText(), 20))
			if hint := qemuHint(logText()); hint != "" {
				err = fmt.Errorf("%w\n%s", err, hint)
			}
		}
	case <-ctx.Done():
		cancel()
		<-waitErr
		err = fmt.Errorf("vm: run: %w before %q; console ends:\n%s", ctx.Err(), done, tail(logText(), 20))
	}
	<-scanDone
	res.Log = logText()
	return res, err
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
