package vm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

const sampleDep = `kernel/fs/configfs/configfs.ko:
kernel/drivers/usb/common/usb-common.ko:
kernel/drivers/usb/gadget/udc/udc-core.ko: kernel/drivers/usb/common/usb-common.ko
kernel/drivers/usb/gadget/libcomposite.ko: kernel/drivers/usb/gadget/udc/udc-core.ko kernel/fs/configfs/configfs.ko kernel/drivers/usb/common/usb-common.ko
kernel/drivers/usb/core/usbcore.ko: kernel/drivers/usb/common/usb-common.ko
kernel/drivers/usb/gadget/udc/dummy_hcd.ko: kernel/drivers/usb/gadget/udc/udc-core.ko kernel/drivers/usb/core/usbcore.ko kernel/drivers/usb/common/usb-common.ko
kernel/drivers/hid/hid-multitouch.ko: kernel/drivers/hid/hid.ko
kernel/drivers/hid/hid.ko:
`

func TestResolve(t *testing.T) {
	t.Parallel()
	md, err := parseModulesDep(strings.NewReader(sampleDep))
	if err != nil {
		t.Fatal(err)
	}
	builtin := map[string]bool{"evdev": true}
	tests := []struct {
		names   []string
		want    []string
		wantErr string
	}{
		{names: []string{"configfs"}, want: []string{"kernel/fs/configfs/configfs.ko"}},
		{names: []string{"dummy_hcd", "libcomposite"}, want: []string{
			"kernel/drivers/usb/common/usb-common.ko",
			"kernel/drivers/usb/core/usbcore.ko",
			"kernel/drivers/usb/gadget/udc/udc-core.ko",
			"kernel/drivers/usb/gadget/udc/dummy_hcd.ko",
			"kernel/fs/configfs/configfs.ko",
			"kernel/drivers/usb/gadget/libcomposite.ko",
		}},
		{names: []string{"hid-multitouch", "evdev"}, want: []string{
			"kernel/drivers/hid/hid.ko", "kernel/drivers/hid/hid-multitouch.ko",
		}},
		{names: []string{"nosuch"}, wantErr: `module "nosuch"`},
	}
	for _, tt := range tests {
		got, err := md.resolve(tt.names, builtin)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("resolve(%v) error = %v, want %q", tt.names, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("resolve(%v): %v", tt.names, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("resolve(%v) = %v, want %v", tt.names, got, tt.want)
		}
	}
}

func TestParseModulesDepBadLine(t *testing.T) {
	t.Parallel()
	if _, err := parseModulesDep(strings.NewReader("no colon here\n")); err == nil {
		t.Fatal("parseModulesDep accepted a line without a colon")
	}
}

func TestParseDepends(t *testing.T) {
	t.Parallel()
	got, err := parseDepends([]byte("linux-image-arm64:arm64\n  Depends: linux-image-6.1.0-57-arm64:arm64\n"))
	if err != nil || got != "linux-image-6.1.0-57-arm64" {
		t.Errorf("parseDepends = %q, %v", got, err)
	}
	if _, err := parseDepends([]byte("linux-image-arm64:arm64\n")); err == nil {
		t.Error("parseDepends accepted output without Depends")
	}
}

// cpioEntry is one parsed newc entry.
type cpioEntry struct {
	mode, rmaj, rmin uint32
	data             string
}

// readCpio parses a newc archive (test helper, the inverse of cpioWriter).
func readCpio(t *testing.T, b []byte) map[string]cpioEntry {
	t.Helper()
	out := map[string]cpioEntry{}
	off := 0
	field := func(i int) uint32 {
		v, err := strconv.ParseUint(string(b[off+6+8*i:off+14+8*i]), 16, 32)
		if err != nil {
			t.Fatalf("bad cpio header at %d: %v", off, err)
		}
		return uint32(v)
	}
	align := func(n int) int { return (n + 3) &^ 3 }
	for {
		if string(b[off:off+6]) != "070701" {
			t.Fatalf("bad magic at %d: %q", off, b[off:off+6])
		}
		mode, size, rmaj, rmin, nsize := field(1), int(field(6)), field(9), field(10), int(field(11))
		name := string(b[off+110 : off+110+nsize-1])
		off = align(off + 110 + nsize)
		data := string(b[off : off+size])
		off = align(off + size)
		if name == "TRAILER!!!" {
			return out
		}
		out[name] = cpioEntry{mode, rmaj, rmin, data}
	}
}

func TestBuildInitramfs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	modDir := filepath.Join(dir, "lib/modules/6.1.0-test")
	for _, p := range []string{"kernel/fs/configfs/configfs.ko", "kernel/drivers/hid/hid.ko", "kernel/drivers/hid/hid-multitouch.ko"} {
		os.MkdirAll(filepath.Join(modDir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(modDir, p), []byte("ko:"+p), 0o644)
	}
	os.WriteFile(filepath.Join(modDir, "modules.dep"), []byte(sampleDep), 0o644)
	bb := filepath.Join(dir, "busybox")
	os.WriteFile(bb, []byte("busybox-binary"), 0o755)
	guest := filepath.Join(dir, "guest")
	os.WriteFile(guest, []byte("guest-binary"), 0o755)
	k := &Kernel{Version: "6.1.0-test", ModDir: modDir}
	out := filepath.Join(dir, "initrd.cpio.gz")
	err := BuildInitramfs(Initramfs{
		Kernel: k, Busybox: bb, Modules: []string{"hid_multitouch"},
		Files: map[string]string{"/usr/bin/guest": guest}, Run: "/usr/bin/guest -v",
	}, out)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(out)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(zr)
	ents := readCpio(t, raw)
	checks := []struct {
		name string
		mode uint32
		data string
	}{
		{"bin/busybox", cpioFile | 0o755, "busybox-binary"},
		{"usr/bin/guest", cpioFile | 0o755, "guest-binary"},
		{"usr", cpioDir | 0o755, ""},
		{"usr/bin", cpioDir | 0o755, ""},
		{"lib/modules/6.1.0-test/kernel/drivers/hid/hid.ko", cpioFile | 0o644, "ko:kernel/drivers/hid/hid.ko"},
		{"etc/vm-modules", cpioFile | 0o644, "6.1.0-test/kernel/drivers/hid/hid.ko\n6.1.0-test/kernel/drivers/hid/hid-multitouch.ko\n"},
	}
	for _, c := range checks {
		e, ok := ents[c.name]
		if !ok {
			t.Errorf("initramfs has no %s", c.name)
			continue
		}
		if e.mode != c.mode || e.data != c.data {
			t.Errorf("%s = mode %o data %q, want mode %o data %q", c.name, e.mode, e.data, c.mode, c.data)
		}
	}
	if c := ents["dev/console"]; c.mode != cpioChar|0o600 || c.rmaj != 5 || c.rmin != 1 {
		t.Errorf("dev/console = %+v, want char 5,1", c)
	}
	if _, ok := ents["lib/modules/6.1.0-test/kernel/fs/configfs/configfs.ko"]; ok {
		t.Error("initramfs holds configfs, which was not asked for")
	}
	if init := ents["init"].data; !strings.Contains(init, "/usr/bin/guest -v\nrc=$?") || !strings.Contains(init, DoneMarker+"$rc") {
		t.Errorf("init script lacks the command or marker:\n%s", init)
	}
}

func TestBuildInitramfsErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bb := filepath.Join(dir, "busybox")
	os.WriteFile(bb, []byte("x"), 0o755)
	tests := []struct {
		name string
		spec Initramfs
		want string
	}{
		{"no busybox", Initramfs{}, "no busybox"},
		{"modules without kernel", Initramfs{Busybox: bb, Modules: []string{"evdev"}}, "need a kernel"},
		{"missing file", Initramfs{Busybox: bb, Files: map[string]string{"/x": filepath.Join(dir, "nope")}}, "file /x"},
		{"missing busybox", Initramfs{Busybox: filepath.Join(dir, "nope")}, "busybox"},
	}
	for _, tt := range tests {
		out := filepath.Join(dir, "out-"+strings.ReplaceAll(tt.name, " ", "-"))
		err := BuildInitramfs(tt.spec, out)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error = %v, want %q", tt.name, err, tt.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: left a partial %s", tt.name, out)
		}
	}
}

func TestReadTar(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	disk := filepath.Join(dir, "disk.img")
	if err := NewDisk(disk, 1<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTar(disk); err == nil || !strings.Contains(err.Error(), "no files") {
		t.Errorf("ReadTar(empty disk) error = %v, want no files", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755})
	tw.WriteHeader(&tar.Header{Name: "./frame.png", Typeflag: tar.TypeReg, Mode: 0o644, Size: 5})
	tw.Write([]byte("hello"))
	tw.Close()
	f, _ := os.OpenFile(disk, os.O_WRONLY, 0)
	f.WriteAt(buf.Bytes(), 0)
	f.Close()
	files, err := ReadTar(disk)
	if err != nil {
		t.Fatal(err)
	}
	if string(files["./frame.png"]) != "hello" || len(files) != 1 {
		t.Errorf("ReadTar = %q, want one ./frame.png = hello", files)
	}
}

func TestConfigArgs(t *testing.T) {
	t.Parallel()
	got := strings.Join(Config{Kernel: "k", Initrd: "i", Disk: "d.img", Extra: []string{"-s"}}.Args(), " ")
	want := "-M virt -cpu cortex-a53 -smp 2 -m 512 -nographic -no-reboot -kernel k -initrd i " +
		"-drive file=d.img,format=raw,if=none,id=d0 -device virtio-blk-device,drive=d0 " +
		"-append console=ttyAMA0 rdinit=/init loglevel=4 panic=-1 -s"
	if got != want {
		t.Errorf("Args =\n%s\nwant\n%s", got, want)
	}
}

// fakeQEMU writes a shell script that stands in for QEMU and prints body.
func fakeQEMU(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "qemu")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		script     string
		timeout    time.Duration
		wantStatus int
		wantErr    string
	}{
		{"marker then exit", `echo booting; echo "` + DoneMarker + `3"; exit 0`, 10 * time.Second, 3, ""},
		{"exit without marker", `echo booting; echo panic; exit 1`, 10 * time.Second, -1, "exited before"},
		{"hangs", `echo booting; sleep 30`, 300 * time.Millisecond, -1, "deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			var console bytes.Buffer
			res, err := Run(ctx, Config{QEMU: fakeQEMU(t, tt.script), Kernel: "k", Console: &console})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "booting") {
					t.Fatalf("Run error = %v, want %q with the console tail", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.wantStatus || !strings.Contains(res.Log, "booting\n") {
				t.Errorf("Run = status %d log %q, want status %d", res.Status, res.Log, tt.wantStatus)
			}
			if !strings.Contains(console.String(), "] booting") {
				t.Errorf("console copy = %q, want timestamped lines", console.String())
			}
		})
	}
}

func TestRunKillsAfterGrace(t *testing.T) {
	if testing.Short() {
		t.Skip("waits GraceAfterDone")
	}
	t.Parallel()
	start := time.Now()
	res, err := Run(context.Background(), Config{QEMU: fakeQEMU(t, `echo "`+DoneMarker+`0"; exec sleep 60`), Kernel: "k"})
	if err != nil || res.Status != 0 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if el := time.Since(start); el > GraceAfterDone+5*time.Second {
		t.Errorf("Run took %v after the marker, want about %v", el, GraceAfterDone)
	}
}

func TestRunNeedsKernel(t *testing.T) {
	t.Parallel()
	if _, err := Run(context.Background(), Config{}); err == nil {
		t.Fatal("Run without a kernel succeeded")
	}
}

func TestParsePins(t *testing.T) {
	t.Parallel()
	got, err := parsePins("p", "# comment\n\nlinux-image-6.1.0-57-arm64 6.1.192-3\n busybox-static 1:1.35.0-4+deb12u1+b1 \n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"linux-image-6.1.0-57-arm64": "6.1.192-3", "busybox-static": "1:1.35.0-4+deb12u1+b1"}
	if !maps.Equal(got, want) {
		t.Errorf("parsePins = %v, want %v", got, want)
	}
	for _, bad := range []string{"lonely\n", "a 1 extra\n", "a 1\na 2\n"} {
		if _, err := parsePins("p", bad); err == nil || !strings.Contains(err.Error(), "p:") {
			t.Errorf("parsePins(%q) = %v, want an error naming the file and line", bad, err)
		}
	}
}

// TestCardPins: the card's package list names exactly one kernel, the
// one the kernel test boots.
func TestCardPins(t *testing.T) {
	t.Parallel()
	pins, err := ReadPins("../debian/packages.lock")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Fetcher{Cache: t.TempDir(), Pins: pins}.kernelPackage(context.Background())
	if err != nil || !strings.HasPrefix(got, "linux-image-6.") {
		t.Errorf("kernel of the card's pins = %q, %v", got, err)
	}
}

func TestKernelPackageTwoPins(t *testing.T) {
	t.Parallel()
	f := Fetcher{Cache: t.TempDir(), Pins: map[string]string{"linux-image-6.1.0-50-arm64": "6.1.176-1", "linux-image-6.1.0-57-arm64": "6.1.192-3"}}
	if _, err := f.kernelPackage(context.Background()); err == nil || !strings.Contains(err.Error(), "keep one") {
		t.Errorf("two pinned kernels = %v, want an error", err)
	}
}

// TestFindDebVersion: a pinned version takes only its own .deb (an epoch's
// colon is %3a in the file name); no version takes the newest name.
func TestFindDebVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []string{"busybox-static_1%3a1.35.0-4_arm64.deb", "busybox-static_1%3a1.36.0-1_arm64.deb"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok := findDeb(dir, "busybox-static", "1:1.35.0-4"); !ok || filepath.Base(got) != "busybox-static_1%3a1.35.0-4_arm64.deb" {
		t.Errorf("findDeb pinned = %q, %v", got, ok)
	}
	if _, ok := findDeb(dir, "busybox-static", "1:1.37.0-1"); ok {
		t.Error("findDeb found a version that is not there")
	}
	if got, ok := findDeb(dir, "busybox-static", ""); !ok || filepath.Base(got) != "busybox-static_1%3a1.36.0-1_arm64.deb" {
		t.Errorf("findDeb newest = %q, %v", got, ok)
	}
}

func TestAptOptions(t *testing.T) {
	t.Parallel()
	if o := (Apt{}).options(); o != nil || (Apt{}).name("x") != "x:arm64" {
		t.Errorf("host apt: options %v, name %q", o, (Apt{}).name("x"))
	}
	a := Apt{SourceList: "/s.list", Dir: "/c/apt"}
	o := strings.Join(a.options(), " ")
	for _, want := range []string{"Dir::Etc::SourceList=/s.list", "Dir::State::Lists=/c/apt/lists", "APT::Architecture=arm64"} {
		if !strings.Contains(o, want) {
			t.Errorf("private apt options %q lack %q", o, want)
		}
	}
	if a.name("x") != "x" {
		t.Errorf("private apt name = %q", a.name("x"))
	}
}

// TestExtractOtherVersion: a folder unpacked from one .deb is unpacked
// again from another (a new pin), not kept.
func TestExtractOtherVersion(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("dpkg-deb not installed")
	}
	dir := t.TempDir()
	deb := func(version string) string {
		root := filepath.Join(dir, "src-"+version)
		for p, b := range map[string]string{
			"DEBIAN/control": "Package: p\nVersion: " + version + "\nArchitecture: arm64\nMaintainer: t <t@t>\nDescription: t\n",
			"etc/version":    version + "\n",
		} {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, p), []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(dir, "p_"+version+"_arm64.deb")
		if b, err := exec.Command("dpkg-deb", "--root-owner-group", "-b", root, out).CombinedOutput(); err != nil {
			t.Fatalf("dpkg-deb -b: %v: %s", err, b)
		}
		return out
	}
	ctx := context.Background()
	to := filepath.Join(dir, "p")
	for _, v := range []string{"1", "2", "2"} {
		if err := extract(ctx, deb(v), to); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(to, "etc", "version")); strings.TrimSpace(string(b)) != v {
			t.Errorf("after extracting version %s the folder holds %q", v, b)
		}
	}
}
