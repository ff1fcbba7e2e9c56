package rootfs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// debianPackage names the Debian package that brings each host tool these
// tests run (scripts/deps.sh installs them all).
var debianPackage = map[string]string{
	"genimage": "genimage", "mcopy": "mtools", "mkdosfs": "dosfstools", "mke2fs": "e2fsprogs",
	"debugfs": "e2fsprogs", "mksquashfs": "squashfs-tools", "dtc": "device-tree-compiler",
	"fdtput": "device-tree-compiler", "cpio": "cpio", "mtype": "mtools", "readelf": "binutils", "hexdump": "bsdextrautils",
}

// need fails the test, naming the package to install, when a tool is missing.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			pkg := debianPackage[tool]
			if pkg == "" {
				pkg = "the package that has it"
			}
			t.Fatalf("%s is not installed: install Debian's %s (apt-get install %s, or sh scripts/deps.sh): %v", tool, pkg, pkg, err)
		}
	}
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestBuildrootPostImage runs the Buildroot post-image script on a fake
// BINARIES_DIR (no Buildroot here): firmware files, a kernel, a DTB, a
// squashfs and a static "busybox" in TARGET_DIR. The card must come out
// with the Buildroot kernel lines, the dwc2 overlay, a serial0 console and
// a stage-1 initramfs holding the shared init.
func TestBuildrootPostImage(t *testing.T) {
	t.Parallel()
	need(t, "genimage", "mkdosfs", "mcopy", "mtype", "mke2fs", "mksquashfs", "dtc", "fdtput", "cpio", "readelf", "go")
	dir := t.TempDir()
	images, target := filepath.Join(dir, "images"), filepath.Join(dir, "target")
	for _, d := range []string{"rpi-firmware/overlays", "root/etc"} {
		os.MkdirAll(filepath.Join(images, d), 0o755)
	}
	os.MkdirAll(filepath.Join(target, "bin"), 0o755)
	os.WriteFile(filepath.Join(images, "rpi-firmware", "start4.elf"), []byte("firmware"), 0o644)
	os.WriteFile(filepath.Join(images, "rpi-firmware", "config.txt"), []byte("rpi-firmware's own\n"), 0o644)
	os.WriteFile(filepath.Join(images, "rpi-firmware", "overlays", "dwc2.dtbo"), []byte("overlay"), 0o644)
	os.WriteFile(filepath.Join(images, "Image"), bytes.Repeat([]byte("k"), 4096), 0o644)
	dts := filepath.Join(dir, "pi.dts")
	os.WriteFile(dts, []byte("/dts-v1/;\n/ { soc { usb@7e980000 { dr_mode = \"host\"; }; }; };\n"), 0o644)
	run(t, dir, nil, "dtc", "-q", "-I", "dts", "-O", "dtb", "-o", filepath.Join(images, "bcm2711-rpi-4-b.dtb"), dts)
	os.WriteFile(filepath.Join(images, "root", "etc", "hostname"), []byte("openlolo\n"), 0o644)
	run(t, dir, nil, "mksquashfs", filepath.Join(images, "root"), filepath.Join(images, "rootfs.squashfs"), "-quiet", "-no-progress", "-all-root")
	// a static ELF stands in for the target's busybox (no DT_NEEDED, no interpreter)
	main := filepath.Join(dir, "bb", "main.go")
	os.MkdirAll(filepath.Dir(main), 0o755)
	os.WriteFile(main, []byte("package main\nfunc main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bb", "go.mod"), []byte("module bb\ngo 1.26\n"), 0o644)
	run(t, filepath.Join(dir, "bb"), []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64", "GOTOOLCHAIN=local", "GOFLAGS="},
		"go", "build", "-o", filepath.Join(target, "bin", "busybox"), ".")

	env := []string{"TARGET_DIR=" + target, "HOST_DIR=" + filepath.Join(dir, "host"),
		"OPENLOLO_IMAGE_VERSION=test", "SOURCE_DATE_EPOCH=1700000000"}
	run(t, dir, env, "sh", filepath.Join(board(t), "post-image.sh"), images, "rpi4")

	img := filepath.Join(images, "openlolo-test-rpi.img")
	boot := img + "@@4194304"
	config := run(t, dir, nil, "mtype", "-i", boot, "::/config.txt")
	for _, want := range []string{"arm_64bit=1", "start_file=start4.elf", "kernel=Image", "initramfs initrd.img followkernel", "dtoverlay=dwc2,dr_mode=peripheral"} {
		if !strings.Contains(config, want) {
			t.Errorf("config.txt lacks %q:\n%s", want, config)
		}
	}
	if strings.Contains(config, "rpi-firmware's own") || strings.Contains(config, "upstream_kernel") {
		t.Errorf("config.txt has lines that are not the Buildroot build's:\n%s", config)
	}
	cmdline := run(t, dir, nil, "mtype", "-i", boot, "::/cmdline.txt")
	if !strings.Contains(cmdline, "console=serial0,115200") || !strings.Contains(cmdline, "root=PARTUUID=") || strings.Contains(cmdline, "@") {
		t.Errorf("cmdline.txt = %q", cmdline)
	}
	files := run(t, dir, nil, "mdir", "-b", "-i", boot, "::/")
	for _, want := range []string{"Image", "bcm2711-rpi-4-b.dtb", "start4.elf", "initrd.img", "overlays"} {
		if !strings.Contains(files, want) {
			t.Errorf("the boot partition lacks %s:\n%s", want, files)
		}
	}
	initrd := filepath.Join(dir, "initrd.img")
	run(t, dir, nil, "mcopy", "-n", "-i", boot, "::/initrd.img", initrd)
	list := run(t, dir, nil, "sh", "-c", "gzip -dc "+initrd+" | cpio -t --quiet")
	for _, want := range []string{"init", "bin/busybox", "newroot"} {
		if !strings.Contains(list, want+"\n") {
			t.Errorf("the initramfs lacks %s:\n%s", want, list)
		}
	}
	// no GADGET_DTBS in the Buildroot build: the DTB is left alone, the overlay does the work
	dtb := filepath.Join(dir, "out.dtb")
	run(t, dir, nil, "mcopy", "-n", "-i", boot, "::/bcm2711-rpi-4-b.dtb", dtb)
	if got := strings.TrimSpace(run(t, dir, nil, "fdtget", "-t", "s", dtb, "/soc/usb@7e980000", "dr_mode")); got != "host" {
		t.Errorf("dr_mode = %q; the Buildroot build must not patch DTBs", got)
	}

	// a missing board name is refused with a sentence
	cmd := exec.Command("sh", filepath.Join(board(t), "post-image.sh"), images)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "board name missing") {
		t.Errorf("post-image.sh without a board: %v, %s", err, out)
	}
}

func TestMkcardRefuses(t *testing.T) {
	t.Parallel()
	need(t, "genimage", "fdtput", "dtc", "mkdosfs", "mcopy", "mke2fs")
	full := t.TempDir()
	os.MkdirAll(filepath.Join(full, "boot"), 0o755)
	os.WriteFile(filepath.Join(full, "rootfs.squashfs"), []byte("x"), 0o644)
	tests := []struct {
		name string
		dir  string
		args []string
		env  []string
		want string
	}{
		{"no arguments", full, nil, []string{"SOURCE_DATE_EPOCH=1"}, "usage: mkcard.sh DIR VERSION"},
		{"no epoch", full, []string{full, "v1"}, []string{"SOURCE_DATE_EPOCH="}, "set SOURCE_DATE_EPOCH"},
		{"no root", t.TempDir(), nil, []string{"SOURCE_DATE_EPOCH=1"}, "rootfs.squashfs is missing"},
		{"unknown gadget DTB", full, []string{full, "v1"}, []string{"SOURCE_DATE_EPOCH=1", "GADGET_DTBS=nope.dtb"}, "GADGET_DTBS names nope.dtb"},
	}
	for _, tc := range tests {
		args := tc.args
		if args == nil && tc.name != "no arguments" {
			args = []string{tc.dir, "v1"}
		}
		cmd := exec.Command("sh", append([]string{filepath.Join(board(t), "mkcard.sh")}, args...)...)
		cmd.Env = append(os.Environ(), tc.env...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: err %v, output %q; want a failure saying %q", tc.name, err, out, tc.want)
		}
	}
}

func TestPostBuild(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, f := range []string{"etc/inittab", "etc/init.d/rcS", "etc/init.d/S50crond", "usr/libexec/openlolo/supervise"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(root, f), []byte("#"), 0o755)
	}
	script := filepath.Join(board(t), "post-build.sh")
	pub := filepath.Join(t.TempDir(), "update.pub")
	os.WriteFile(pub, []byte("openlolo-update-ed25519 AAAA\n"), 0o644)
	run(t, root, []string{"OPENLOLO_IMAGE_VERSION=1.2.3", "SOURCE_DATE_EPOCH=1700000000", "OPENLOLO_UPDATE_PUB=" + pub}, "sh", script, root, "rpi4")
	if b, _ := os.ReadFile(filepath.Join(root, "etc", "openlolo", "update.pub")); string(b) != "openlolo-update-ed25519 AAAA\n" {
		t.Errorf("update.pub on the root = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "etc", "openlolo-release")); string(b) != "NAME=openlolo\nVERSION=1.2.3\nBOARD=rpi4\nBUILT=1700000000\n" {
		t.Errorf("openlolo-release = %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "etc", "init.d", "S50crond")); err == nil {
		t.Error("Buildroot's S* init scripts were kept")
	}
	if _, err := os.Stat(filepath.Join(root, "etc", "init.d", "rcS")); err != nil {
		t.Error("rcS was removed")
	}
	os.Remove(filepath.Join(root, "usr", "libexec", "openlolo", "supervise"))
	out, err := exec.Command("sh", script, root).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "overlay was not applied") {
		t.Errorf("post-build.sh on a root without the overlay: %v, %s", err, out)
	}
	if out, err := exec.Command("sh", script, t.TempDir()).CombinedOutput(); err == nil || !strings.Contains(string(out), "no etc/") {
		t.Errorf("post-build.sh on an empty folder: %v, %s", err, out)
	}
}
