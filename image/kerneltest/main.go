// Command kerneltest proves the box's hardware path against the real Linux
// kernel: it boots Debian's arm64 kernel under QEMU (image/vm) with an
// initramfs holding busybox, the USB gadget (HID and FunctionFS), HID,
// evdev and vivid modules, the box's ADB key, the fake iPhone's key and a
// pair record for it, the
// box's own static arm64 binary (-openlolo) and the guest program
// (./guest, built static for arm64), reads one "RESULT name PASS|FAIL detail"
// line per check from the serial console, checks the PNG the guest
// exported through a virtio disk, and prints a closing "N passed, N
// failed" line. It exits 1 when anything failed.
//
// Usage (from the module root; make test-kernel):
//
//	go run ./image/kerneltest -cache .cache/vm -openlolo out/openlolo-linux-arm64 [-v] [-timeout 10m]
//
// The host needs qemu-system-aarch64, dpkg-deb, depmod, apt-get and
// Debian's archive keyring. The guest's packages are the SD card's: they
// are fetched with apt-get download into the cache through a private apt
// configuration reading image/debian/sources.list (-sources), at the
// versions image/debian/packages.lock pins (-pins), so the kernel under
// test is the card's kernel whatever the host's own apt sources hold.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"flag"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/openlolo/openlolo/hw/adb"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/image/vm"
)

// modules the guest needs; their dependencies come from modules.dep.
var modules = []string{
	"virtio_mmio", "virtio_blk",
	"configfs", "libcomposite", "dummy_hcd", "usb_f_hid", "usb_f_fs",
	"usbhid", "hid_generic", "hid_multitouch", "evdev",
	"vivid",
}

// expected lists every check the guest must report; a missing one counts
// as failed (the guest crashed or hung before it).
var expected = []string{
	"phone-open-android", "phone-state-android", "gadget-reconcile-idempotent", "gadget-attributes",
	"keyboard-type-Hi!", "touch-android-direct", "touch-android-tap",
	"consumer-home", "consumer-volume-up", "phone-screenshot", "input-not-reading", "input-rebind-recovers", "input-gadget-gone-recovers",
	"phone-close-android",
	"phone-open-ios", "phone-state-ios", "absmouse-ios-click",
	"phone-open-ios-relative", "phone-state-ios-relative", "relmouse-ios-relative-tap",
	"gadget-teardown", "selftest-gadget",
	"capture-open", "capture-frame", "capture-stream", "capture-decode", "capture-geometry", "capture-png", "capture-reopen", "capture-close",
	"usb-claim-detaches-driver", "usb-fake-android", "usb-watch-arrival", "usb-open", "usb-control-get-protocol", "usb-control-stall", "usb-control-out",
	"usb-bulk-deadline", "adb-usb-connect", "adb-usb-shell", "adb-usb-screencap", "aoa-usb-tap", "aoa-usb-adb-alive", "usb-device-gone",
	"fake-iphone", "usbmux-fake-iphone", "usbmux-attach", "usbmux-connect-lockdown", "usbmux-lockdown-querytype", "usbmux-lockdown-pair",
	"usbmux-lockdown-tls", "usbmux-service-start", "usbmux-device-gone",
	"coredevice-fake-iphone", "selftest-coredevice", "serve-coredevice-up", "serve-pair",
	"mcp-coredevice-phones", "mcp-coredevice-device-info", "mcp-coredevice-screenshot", "mcp-coredevice-tap",
	"mcp-coredevice-apps", "mcp-coredevice-launch", "serve-coredevice-stop", "usbmuxd-fake-iphone",
	"android-fake-phone", "serve-android-up", "serve-android-client", "mcp-android-phones", "mcp-android-device-info",
	"mcp-android-screenshot", "mcp-android-tap", "mcp-android-type-text", "mcp-android-key", "mcp-android-button",
	"mcp-android-apps", "mcp-android-launch", "mcp-android-open-url", "serve-android-stop",
}

func main() {
	cache := flag.String("cache", ".cache/vm", "folder for the downloaded kernel and busybox packages")
	verbose := flag.Bool("v", false, "print the VM console as it runs")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up after this long")
	keep := flag.Bool("keep", false, "keep the work folder (initramfs, disk, log)")
	openlolo := flag.String("openlolo", "out/openlolo-linux-arm64", "the box's static arm64 binary (make arm64), run in the guest")
	sources := flag.String("sources", "image/debian/sources.list", "the apt sources the guest's packages come from")
	pins := flag.String("pins", "image/debian/packages.lock", "the package versions to fetch (the SD card's; its kernel is the one under test)")
	flag.Parse()
	fetch, err := fetcher(*cache, *sources, *pins)
	if err == nil {
		err = run(fetch, *openlolo, *verbose, *timeout, *keep, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kerneltest:", err)
		os.Exit(1)
	}
}

// fetcher is the guest packages' source: the cache folder, a private apt
// configuration on the sources file, and the pinned versions.
func fetcher(cache, sources, pins string) (vm.Fetcher, error) {
	cache, err := filepath.Abs(cache)
	if err != nil {
		return vm.Fetcher{}, err
	}
	sources, err = filepath.Abs(sources)
	if err != nil {
		return vm.Fetcher{}, err
	}
	if _, err := os.Stat(sources); err != nil {
		return vm.Fetcher{}, fmt.Errorf("apt sources for the guest: %w (run from the module root, or set -sources)", err)
	}
	p, err := vm.ReadPins(pins)
	if err != nil {
		return vm.Fetcher{}, fmt.Errorf("%w (run from the module root, or set -pins)", err)
	}
	return vm.Fetcher{Cache: cache, Apt: vm.Apt{SourceList: sources, Dir: filepath.Join(cache, "apt")}, Pins: p}, nil
}

func run(fetch vm.Fetcher, openlolo string, verbose bool, timeout time.Duration, keep bool, out io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	work, err := os.MkdirTemp("", "kerneltest-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintln(out, "work folder:", work)
	} else {
		defer os.RemoveAll(work)
	}
	if _, err := os.Stat(openlolo); err != nil {
		return fmt.Errorf("the box's arm64 binary: %w (make arm64 builds it; make test-kernel does that first)", err)
	}
	guest := filepath.Join(work, "guest")
	if err := buildGuest(ctx, guest); err != nil {
		return err
	}
	k, err := fetch.Kernel(ctx)
	if err != nil {
		return err
	}
	bb, err := fetch.Busybox(ctx)
	if err != nil {
		return err
	}
	// The box's ADB key, the fake iPhone's key and a pair record for it
	// are made here: a 2048-bit RSA key takes the emulated guest seconds.
	adbKey := filepath.Join(work, "adbkey")
	if _, err := adb.LoadOrCreateKey(adbKey); err != nil {
		return err
	}
	iPhoneKey, pairRecord := filepath.Join(work, "iphonekey"), filepath.Join(work, "pairrecord")
	if err := writeIPhoneKeys(iPhoneKey, pairRecord); err != nil {
		return err
	}
	files, err := usbmuxdFiles(ctx, fetch)
	if err != nil {
		return err
	}
	maps.Copy(files, map[string]string{"/bin/guest": guest, "/bin/openlolo": openlolo, "/etc/adbkey": adbKey,
		"/etc/iphonekey": iPhoneKey, "/etc/pairrecord": pairRecord})
	initrd := filepath.Join(work, "initrd.cpio.gz")
	if err := vm.BuildInitramfs(vm.Initramfs{
		Kernel: k, Busybox: bb, Modules: modules,
		Files: files,
		// Loopback up: the guest reaches openlolo serve on 127.0.0.1.
		Run: "ip link set lo up; /bin/guest || { dmesg | grep -iE 'usb|hid|input|gadget' | tail -60; false; }",
	}, initrd); err != nil {
		return err
	}
	disk := filepath.Join(work, "export.img")
	if err := vm.NewDisk(disk, 16<<20); err != nil {
		return err
	}
	fmt.Fprintf(out, "kerneltest: booting %s (prepared in %v)\n", k.Package, time.Since(start).Round(time.Millisecond))
	cfg := vm.Config{Kernel: k.Image, Initrd: initrd, Disk: disk}
	if verbose {
		cfg.Console = out
	}
	res, runErr := vm.Run(ctx, cfg)
	if res != nil {
		os.WriteFile(filepath.Join(work, "console.log"), []byte(res.Log), 0o644)
	}
	results := map[string]string{}
	var order []string
	if res != nil {
		order = parseResults(res.Log, results)
	}
	// Host-side check: the PNG the guest captured decodes, at the size
	// the guest reported.
	order = append(order, "host-frame-png")
	results["host-frame-png"] = checkFrame(disk)

	passed := 0
	var fails []string
	for _, name := range order {
		line := results[name]
		fmt.Fprintf(out, "%s %s\n", name, line)
		if strings.HasPrefix(line, "PASS") {
			passed++
		} else {
			fails = append(fails, name+" "+line)
		}
	}
	for _, name := range expected {
		if _, ok := results[name]; !ok {
			line := name + " FAIL not reported by the guest"
			fmt.Fprintln(out, line)
			fails = append(fails, line)
		}
	}
	failed := len(fails)
	if runErr != nil || res == nil || res.Status != 0 {
		if res != nil && !verbose {
			fmt.Fprintf(out, "--- console ---\n%s--- end ---\n", res.Log)
		}
		if runErr != nil {
			fmt.Fprintln(out, "kerneltest:", runErr)
			failed++
		}
	}
	// The failures again, last: CI keeps only the tail of a long log, and
	// the console dump above pushes the per-check lines out of it.
	for _, line := range fails {
		fmt.Fprintln(out, "failed:", line)
	}
	fmt.Fprintf(out, "kerneltest: took %v\n", time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(out, "%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return fmt.Errorf("%d checks failed", failed)
	}
	return nil
}

// resultRe matches the guest's result lines.
var resultRe = regexp.MustCompile(`^RESULT (\S+) (PASS|FAIL) ?(.*)$`)

// parseResults fills results from the console log and returns the names
// in order of appearance.
func parseResults(log string, results map[string]string) []string {
	var order []string
	for _, line := range strings.Split(log, "\n") {
		m := resultRe.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		if _, dup := results[m[1]]; !dup {
			order = append(order, m[1])
		}
		results[m[1]] = m[2] + " " + m[3]
	}
	return order
}

// checkFrame reads frame.png and frame.txt from the export disk.
func checkFrame(disk string) string {
	files, err := vm.ReadTar(disk)
	if err != nil {
		return "FAIL " + err.Error()
	}
	img, err := png.Decode(bytes.NewReader(files["./frame.png"]))
	if err != nil {
		return "FAIL frame.png: " + err.Error()
	}
	var w, h int
	var pix string
	if _, err := fmt.Sscan(string(files["./frame.txt"]), &w, &h, &pix); err != nil {
		return "FAIL frame.txt: " + err.Error()
	}
	if img.Bounds().Dx() != w || img.Bounds().Dy() != h {
		return fmt.Sprintf("FAIL frame.png is %v, the guest reported %dx%d", img.Bounds().Size(), w, h)
	}
	return fmt.Sprintf("PASS frame.png %dx%d (%s) decodes: %s", w, h, pix, strings.TrimSpace(string(files["./frame.txt"])))
}

// usbmuxdPackages are Debian's usbmuxd and the libraries it loads
// (arm64, as the guest): the guest runs it on the fake iPhone.
var usbmuxdPackages = []string{"usbmuxd", "libimobiledevice6", "libplist3", "libusb-1.0-0", "libusbmuxd6", "libssl3", "libudev1", "libc6", "libgcc-s1"}

// usbmuxdFiles fetches usbmuxdPackages and returns the guest files they
// bring: the daemon and every shared library, at their own paths.
func usbmuxdFiles(ctx context.Context, fetch vm.Fetcher) (map[string]string, error) {
	files := map[string]string{}
	for _, pkg := range usbmuxdPackages {
		root, err := fetch.Package(ctx, pkg)
		if err != nil {
			return nil, fmt.Errorf("usbmuxd for the guest: %w", err)
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			guest := "/" + filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
			lib := (strings.HasPrefix(guest, "/lib/") || strings.HasPrefix(guest, "/usr/lib/")) && strings.Contains(d.Name(), ".so")
			if guest == "/usr/sbin/usbmuxd" || lib {
				files[guest] = path
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("usbmuxd for the guest: %w", err)
		}
	}
	return files, nil
}

// fakeBUID is the SystemBUID of the pair record made for the fake iPhone.
const fakeBUID = "6F2B1A4E-0C5D-4B7A-9E3F-1D2C3B4A5968"

// writeIPhoneKeys writes the fake iPhone's key (a new 2048-bit RSA key;
// PEM, PKCS #8) to keyPath and a pair record for it (a property list) to
// recordPath: its root and host keys are two more RSA keys, which the
// emulated guest would make in tens of seconds. The guest still pairs
// with the record over USB.
func writeIPhoneKeys(keyPath, recordPath string) error {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return err
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return err
	}
	pub := pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&k.PublicKey)})
	rec, err := lockdown.NewPairRecord(pub, fakeBUID, nil, time.Now())
	if err != nil {
		return err
	}
	b, err := rec.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(recordPath, b, 0o600)
}

// buildGuest builds ./guest as a static arm64 binary.
func buildGuest(ctx context.Context, out string) error {
	dir, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, "./image/kerneltest/guest")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build guest: %w\n%s", err, b)
	}
	return nil
}

func moduleRoot(ctx context.Context) (string, error) {
	b, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("find module root: run kerneltest inside the openlolo module")
	}
	return filepath.Dir(mod), nil
}
