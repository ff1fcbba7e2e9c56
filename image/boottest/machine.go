package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/openlolo/openlolo/image/card"
	"github.com/openlolo/openlolo/image/vm"
)

// bootFiles are what the Pi firmware would load from the boot partition,
// taken off the card: QEMU loads them itself (it runs no VideoCore firmware).
type bootFiles struct {
	Kernel, Initrd string
	Cmdline        string // cmdline.txt, one line
	dir            string
}

// readBootFiles copies vmlinuz, initrd.img and cmdline.txt (and dtbs) off
// the card's boot partition into dir.
func readBootFiles(ctx context.Context, c *card.Card, dir string, dtbs ...string) (*bootFiles, error) {
	b := &bootFiles{dir: dir}
	for _, name := range append([]string{"vmlinuz", "initrd.img", "cmdline.txt"}, dtbs...) {
		data, err := c.BootFile(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("boot files: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return nil, fmt.Errorf("boot files: %w", err)
		}
		if name == "cmdline.txt" {
			b.Cmdline = strings.TrimSpace(string(data))
		}
	}
	b.Kernel, b.Initrd = filepath.Join(dir, "vmlinuz"), filepath.Join(dir, "initrd.img")
	return b, nil
}

// testCmdline is the card's command line for QEMU: the serial console on
// the PL011 (ttyAMA0) instead of the Pi's mini UART, the simulated phone,
// the debug shell, and no reboot loop on a panic.
func testCmdline(card string) string {
	var out []string
	for _, f := range strings.Fields(card) {
		if strings.HasPrefix(f, "console=") || f == "quiet" {
			continue
		}
		out = append(out, f)
	}
	return strings.Join(append(out, "console=ttyAMA0", "panic=-1", "openlolo.phone=sim", "openlolo.debug=1"), " ")
}

// machine is one running boot of the card.
type machine struct {
	con       *console
	start     time.Time
	done      chan error // vm.Run's result, once
	cancel    context.CancelFunc
	httpsAddr string // host address forwarded to the box's :443
	shellAddr string // host address forwarded to the box's :23
}

// machineSpec says how to boot.
type machineSpec struct {
	raspi3b bool   // -M raspi3b with the card as the SD card, else -M virt with virtio
	dtb     string // raspi3b: the device tree
	disk    string
	files   *bootFiles
	echo    io.Writer // console lines, or nil
	cmdline []string  // more kernel command-line words (the Wi-Fi scenario's)
}

// freePort returns a TCP port on 127.0.0.1 nobody listens on now.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// boot starts QEMU through image/vm and returns at once; the machine runs
// until the guest reboots or powers off (the kernel's "reboot:" line) or
// pull() cuts it.
func boot(ctx context.Context, s machineSpec) (*machine, error) {
	https, err := freePort()
	if err != nil {
		return nil, err
	}
	sh, err := freePort()
	if err != nil {
		return nil, err
	}
	m := &machine{con: newConsole(s.echo), start: time.Now(), done: make(chan error, 1), httpsAddr: https, shellAddr: sh}
	fwd := func(addr, guest string) string {
		_, port, _ := net.SplitHostPort(addr)
		return "hostfwd=tcp:127.0.0.1:" + port + "-:" + guest
	}
	cfg := vm.Config{
		Kernel:  s.files.Kernel,
		Initrd:  s.files.Initrd,
		Append:  strings.Join(append([]string{testCmdline(s.files.Cmdline)}, s.cmdline...), " "),
		Done:    "reboot: ",
		Console: m.con,
	}
	if s.raspi3b {
		cfg.Machine, cfg.CPUs, cfg.MemoryMiB = "raspi3b", 4, 1024
		// QEMU's raspi3b resets as soon as the bcm2835 watchdog starts
		// (no timer in its model), so the card's watchdog stays off here.
		cfg.Append += " openlolo.watchdog=0"
		cfg.Extra = []string{"-dtb", filepath.Join(s.files.dir, s.dtb), "-drive", "file=" + s.disk + ",format=raw,if=sd"}
	} else {
		cfg.Disk = s.disk
		cfg.Extra = []string{"-netdev", "user,id=n0," + fwd(https, "443") + "," + fwd(sh, "23"),
			"-device", "virtio-net-device,netdev=n0"}
	}
	rctx, cancel := context.WithCancel(ctx)
	m.cancel = cancel
	go func() {
		_, err := vm.Run(rctx, cfg)
		m.done <- err
	}()
	return m, nil
}

// wait waits for the guest to reboot or power off by itself.
func (m *machine) wait(ctx context.Context) error {
	select {
	case err := <-m.done:
		m.done <- err
		return err
	case <-ctx.Done():
		m.pull()
		return fmt.Errorf("machine did not stop: %w", ctx.Err())
	}
}

// pull cuts the virtual power: QEMU is killed wherever the guest is.
func (m *machine) pull() {
	m.cancel()
	err := <-m.done
	m.done <- err
}

// sparseCopy copies the card to dst (keeping holes) and grows the copy to
// size bytes, as a bigger SD card would be.
func sparseCopy(ctx context.Context, src, dst string, size int64) error {
	if out, err := exec.CommandContext(ctx, "cp", "--sparse=always", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("copy card: %v: %s", err, out)
	}
	st, err := os.Stat(dst)
	if err != nil {
		return err
	}
	if st.Size() > size {
		return fmt.Errorf("copy card: the image (%d bytes) is bigger than the test disk (%d)", st.Size(), size)
	}
	return os.Truncate(dst, size)
}
