package vm

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A QEMU that stops on a missing option ROM (Debian's qemu-system-arm
// without the ipxe-qemu it only recommends) is reported with the package
// to install, after the console tail.
func TestRunNamesPackageOfMissingRomfile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script, want string
	}{
		{"ipxe", `echo 'qemu-system-aarch64: failed to find romfile "efi-virtio.rom"' >&2; exit 1`,
			"QEMU has no efi-virtio.rom: install Debian's ipxe-qemu"},
		{"unknown file", `echo 'qemu-system-aarch64: failed to find romfile "vgabios-odd.bin"' >&2; exit 1`,
			"apt-file search vgabios-odd.bin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := Run(ctx, Config{QEMU: fakeQEMU(t, tt.script), Kernel: "k"})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "failed to find romfile") {
				t.Fatalf("Run error = %v, want the console line and %q", err, tt.want)
			}
		})
	}
}

// A QEMU or apt tool that is not installed is reported with its package.
func TestMissingCommandNamesPackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	ctx := context.Background()
	_, err := Run(ctx, Config{Kernel: "k"})
	if err == nil || !strings.Contains(err.Error(), "install Debian's qemu-system-arm") {
		t.Errorf("Run without qemu-system-aarch64: error = %v, want the package qemu-system-arm", err)
	}
	for name, pkg := range map[string]string{"depmod": "kmod", "dpkg-deb": "dpkg", "apt-get": "apt"} {
		_, err := command(ctx, "", name)
		if err == nil || !strings.Contains(err.Error(), "install Debian's "+pkg) {
			t.Errorf("command(%s) without it on PATH: error = %v, want the package %s", name, err, pkg)
		}
	}
	if _, err := command(ctx, "", "no-such-tool-here"); err == nil || strings.Contains(err.Error(), "install Debian's") {
		t.Errorf("command(no-such-tool-here): error = %v, want a plain not-found error", err)
	}
}
