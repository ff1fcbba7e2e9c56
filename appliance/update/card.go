package update

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Card is the SD card of the openlolo image as [Slots]. Slot A's boot
// files are at the top of the boot partition, slot B's in its b/ folder;
// config.txt names the committed slot (os_prefix=b/ for B, none for A),
// which is what the Pi firmware loads (and what the QEMU test loads as
// the firmware would). The one-shot trial boot is the firmware's tryboot
// (tryboot.txt and reboot "0 tryboot") on a Pi, and the initramfs's
// openlolo/tryboot file elsewhere: stage 1 reads and deletes it, then
// mounts the slot it names.
type Card struct {
	// Boot is the mounted boot partition, e.g. /boot.
	Boot string
	// Disk is the card itself (/dev/mmcblk0, /dev/vda), read for its MBR
	// disk signature.
	Disk string
	// RootA and RootB are the slots' partitions.
	RootA, RootB string
	// Running is the slot the box booted from.
	Running Slot
	// Firmware selects the Pi firmware's tryboot; false selects the
	// initramfs's one-shot file.
	Firmware bool
	// Restart restarts the machine with the reboot argument ("" or
	// "0 tryboot"); nil means the reboot(2) system call after sync.
	Restart func(arg string) error

	rebootArg string
	machine   bool // made by CardFromBoot from the running image's boot.env: Reboot may restart the machine
}

var _ Slots = (*Card)(nil)

// File names on the boot partition.
const (
	configName     = "config.txt"
	trybootName    = "tryboot.txt"
	oneShotName    = "openlolo/tryboot"
	slotBPrefix    = "b/"
	committedMark  = "# openlolo: the committed slot (the updater rewrites from here on)"
	bootEnvDefault = "/run/openlolo/boot.env"
)

// CardFromBoot returns the card the box booted from, as stage 1 wrote it
// in bootEnv (ROOT_SLOT, DISK, ROOTA_DEV, ROOTB_DEV; "" means
// /run/openlolo/boot.env), with the boot partition mounted at boot.
func CardFromBoot(bootEnv, boot string) (*Card, error) {
	if bootEnv == "" {
		bootEnv = bootEnvDefault
	}
	b, err := os.ReadFile(bootEnv)
	if err != nil {
		return nil, fmt.Errorf("update: the card: %w", err)
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	c := &Card{Boot: boot, Disk: env["DISK"], RootA: env["ROOTA_DEV"], RootB: env["ROOTB_DEV"], Running: Slot(env["ROOT_SLOT"])}
	if c.Disk == "" || c.RootA == "" || c.RootB == "" || !c.Running.Valid() {
		return nil, fmt.Errorf("update: the card: %s lacks DISK, ROOTA_DEV, ROOTB_DEV or ROOT_SLOT: stage 1 of this image does not know A/B slots", bootEnv)
	}
	if _, err := os.Stat(filepath.Join(boot, configName)); err != nil {
		return nil, fmt.Errorf("update: the card: the boot partition is not mounted at %s: %w", boot, err)
	}
	_, err = os.Stat("/proc/device-tree/chosen/bootloader")
	c.Firmware = err == nil
	c.machine = bootEnv == bootEnvDefault
	return c, nil
}

func (c *Card) dev(s Slot) string {
	if s == SlotB {
		return c.RootB
	}
	return c.RootA
}

func (c *Card) bootDir(s Slot) string {
	if s == SlotB {
		return filepath.Join(c.Boot, "b")
	}
	return c.Boot
}

// Booted implements [Slots].
func (c *Card) Booted() (Slot, Slot, error) {
	cfg, err := os.ReadFile(filepath.Join(c.Boot, configName))
	if err != nil {
		return c.Running, "", fmt.Errorf("update: read config.txt: %w", err)
	}
	return c.Running, CommittedSlot(cfg), nil
}

// CommittedSlot is the slot a config.txt boots: B when it sets
// os_prefix=b/, else A.
func CommittedSlot(config []byte) Slot {
	for _, l := range strings.Split(string(config), "\n") {
		if strings.TrimSpace(l) == "os_prefix="+slotBPrefix {
			return SlotB
		}
	}
	return SlotA
}

// configFor is config with the committed-slot block set to slot.
func configFor(config []byte, s Slot) []byte {
	if i := bytes.Index(config, []byte(committedMark)); i >= 0 {
		config = config[:i]
	}
	out := bytes.TrimRight(config, "\n")
	out = append(bytes.Clone(out), '\n')
	if s == SlotB {
		out = append(out, committedMark+"\n[all]\nos_prefix="+slotBPrefix+"\n"...)
	}
	return out
}

// RootSize implements [Slots].
func (c *Card) RootSize(s Slot) (int64, error) {
	f, err := os.Open(c.dev(s))
	if err != nil {
		return 0, fmt.Errorf("update: slot %s: %w", s, err)
	}
	defer f.Close()
	n, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, fmt.Errorf("update: slot %s: size: %w", s, err)
	}
	return n, nil
}

// WriteRoot implements [Slots].
func (c *Card) WriteRoot(ctx context.Context, s Slot, r io.Reader) (int64, error) {
	if err := checkSlot(s); err != nil {
		return 0, err
	}
	if s == c.Running {
		return 0, fmt.Errorf("update: slot %s runs now; the updater writes only the other one", s)
	}
	f, err := os.OpenFile(c.dev(s), os.O_WRONLY, 0)
	if err != nil {
		return 0, fmt.Errorf("update: open slot %s: %w", s, err)
	}
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			f.Close()
			return n, err
		}
		m, rerr := io.ReadFull(r, buf)
		if m > 0 {
			if _, err := f.Write(buf[:m]); err != nil {
				f.Close()
				return n, fmt.Errorf("update: write slot %s: %w", s, err)
			}
			n += int64(m)
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) && CodeOf(rerr) == "" {
			break
		}
		if rerr != nil {
			f.Close()
			return n, rerr
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return n, fmt.Errorf("update: sync slot %s: %w", s, err)
	}
	dropCache(f)
	return n, f.Close()
}

// ReadRoot implements [Slots].
func (c *Card) ReadRoot(s Slot) (io.ReadCloser, error) {
	f, err := os.Open(c.dev(s))
	if err != nil {
		return nil, fmt.Errorf("update: read slot %s: %w", s, err)
	}
	dropCache(f)
	return f, nil
}

// WriteBoot implements [Slots]: each file is written under a new name,
// synced and renamed into place.
func (c *Card) WriteBoot(s Slot, files []BootFile) error {
	if s == c.Running {
		return fmt.Errorf("update: slot %s runs now; its boot files stay", s)
	}
	dir := c.bootDir(s)
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("update: boot files of slot %s: %w", s, err)
		}
		if err := writeFileSync(p, f.Data); err != nil {
			return fmt.Errorf("update: boot files of slot %s: %w", s, err)
		}
	}
	return nil
}

var rootArg = regexp.MustCompile(`(^|\s)root=\S+`)

// Cmdline implements [Slots]: root= becomes PARTUUID=<this card's disk
// signature>-02 (A) or -03 (B).
func (c *Card) Cmdline(s Slot, bundle []byte) ([]byte, error) {
	f, err := os.Open(c.Disk)
	if err != nil {
		return nil, fmt.Errorf("update: read the card's disk signature: %w", err)
	}
	defer f.Close()
	var sig [4]byte
	if _, err := f.ReadAt(sig[:], 440); err != nil {
		return nil, fmt.Errorf("update: read the card's disk signature: %w", err)
	}
	part := "02"
	if s == SlotB {
		part = "03"
	}
	root := fmt.Sprintf("root=PARTUUID=%08x-%s", binary.LittleEndian.Uint32(sig[:]), part)
	if !rootArg.Match(bundle) {
		return nil, fmt.Errorf("update: the bundle's cmdline.txt has no root=: %q", bundle)
	}
	return rootArg.ReplaceAll(bytes.TrimSpace(bundle), []byte("${1}"+root)), nil
}

// TryBoot implements [Slots].
func (c *Card) TryBoot(s Slot) error {
	if err := checkSlot(s); err != nil {
		return err
	}
	if c.Firmware {
		cfg, err := os.ReadFile(filepath.Join(c.Boot, configName))
		if err != nil {
			return fmt.Errorf("update: tryboot: %w", err)
		}
		if err := writeFileSync(filepath.Join(c.Boot, trybootName), configFor(cfg, s)); err != nil {
			return fmt.Errorf("update: tryboot: %w", err)
		}
		c.rebootArg = "0 tryboot"
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(c.Boot, oneShotName)), 0o755); err != nil {
		return fmt.Errorf("update: tryboot: %w", err)
	}
	if err := writeFileSync(filepath.Join(c.Boot, oneShotName), []byte(string(s)+"\n")); err != nil {
		return fmt.Errorf("update: tryboot: %w", err)
	}
	return nil
}

// Commit implements [Slots].
func (c *Card) Commit(s Slot) error {
	if err := checkSlot(s); err != nil {
		return err
	}
	p := filepath.Join(c.Boot, configName)
	cfg, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("update: commit: %w", err)
	}
	if err := writeFileSync(p, configFor(cfg, s)); err != nil {
		return fmt.Errorf("update: commit: %w", err)
	}
	for _, n := range []string{trybootName, oneShotName} {
		if err := os.Remove(filepath.Join(c.Boot, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("update: commit: %w", err)
		}
	}
	return nil
}

// Reboot implements [Slots].
func (c *Card) Reboot(ctx context.Context) error {
	if c.Restart != nil {
		return c.Restart(c.rebootArg)
	}
	if !c.machine {
		return fmt.Errorf("update: not restarting: this card was not read from %s, so this is not the image's own boot (restart by hand)", bootEnvDefault)
	}
	return restart(c.rebootArg)
}

// writeFileSync writes data to p through p.new: synced, then renamed.
func writeFileSync(p string, data []byte) error {
	tmp := p + ".new"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(p)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
