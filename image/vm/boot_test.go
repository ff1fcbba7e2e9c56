package vm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBoot boots the SD card's Debian arm64 kernel with a busybox initramfs
// that loads one module and writes a tar to the virtio disk. It needs the
// network or a filled cache: set OPENLOLO_VM_CACHE to the cache folder
// (make test-kernel uses .cache/vm).
func TestBoot(t *testing.T) {
	cache := os.Getenv("OPENLOLO_VM_CACHE")
	if cache == "" {
		t.Skip("set OPENLOLO_VM_CACHE to a cache folder to boot the real kernel")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pins, err := ReadPins("../debian/packages.lock")
	if err != nil {
		t.Fatal(err)
	}
	sources, err := filepath.Abs("../debian/sources.list")
	if err != nil {
		t.Fatal(err)
	}
	f := Fetcher{Cache: cache, Apt: Apt{SourceList: sources, Dir: filepath.Join(cache, "apt")}, Pins: pins}
	k, err := f.Kernel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := f.Busybox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	initrd := filepath.Join(dir, "initrd.gz")
	err = BuildInitramfs(Initramfs{
		Kernel: k, Busybox: bb, Modules: []string{"virtio_mmio", "virtio_blk", "configfs"},
		Run: "test -b /dev/vda && mkdir /tmp/out && echo hi > /tmp/out/hello && tar -cf /dev/vda -C /tmp/out . && grep -q configfs /proc/filesystems",
	}, initrd)
	if err != nil {
		t.Fatal(err)
	}
	disk := filepath.Join(dir, "disk.img")
	if err := NewDisk(disk, 1<<20); err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, Config{Kernel: k.Image, Initrd: initrd, Disk: disk})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 0 {
		t.Fatalf("guest command failed (status %d):\n%s", res.Status, res.Log)
	}
	files, err := ReadTar(disk)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(files["./hello"])) != "hi" {
		t.Errorf("disk files = %q, want ./hello = hi", files)
	}
	t.Logf("booted %s in %v", k.Version, res.Elapsed)
}
