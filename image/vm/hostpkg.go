package vm

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
)

// hostPackages names the Debian package that brings each host command and
// QEMU data file this package uses, so a missing one is reported with what
// to install (scripts/deps.sh installs them all).
var hostPackages = map[string]string{
	"qemu-system-aarch64": "qemu-system-arm",
	"apt-get":             "apt",
	"apt-cache":           "apt",
	"dpkg-deb":            "dpkg",
	"depmod":              "kmod",
	// QEMU's option ROMs for PCI network cards: -M virt adds a
	// virtio-net-pci card unless the command line sets up networking.
	// qemu-system-arm only recommends the package.
	"efi-virtio.rom": "ipxe-qemu",
	"efi-e1000.rom":  "ipxe-qemu",
	"efi-e1000e.rom": "ipxe-qemu",
}

// install is the sentence that tells how to get pkg.
func install(pkg string) string {
	return fmt.Sprintf("install Debian's %s (apt-get install %s, or sh scripts/deps.sh)", pkg, pkg)
}

// notFound adds the package to install when err says the command name is
// not on PATH; other errors come back unchanged.
func notFound(name string, err error) error {
	if !errors.Is(err, exec.ErrNotFound) {
		return err
	}
	if pkg, ok := hostPackages[filepath.Base(name)]; ok {
		return fmt.Errorf("%w: %s", err, install(pkg))
	}
	return err
}

// romfileRe matches QEMU's complaint about a missing data file.
var romfileRe = regexp.MustCompile(`failed to find romfile "([^"]+)"`)

// qemuHint returns a sentence naming the package that brings the data file
// QEMU's output says it could not find, or "".
func qemuHint(log string) string {
	m := romfileRe.FindStringSubmatch(log)
	if m == nil {
		return ""
	}
	if pkg, ok := hostPackages[m[1]]; ok {
		return fmt.Sprintf("QEMU has no %s: %s", m[1], install(pkg))
	}
	return fmt.Sprintf("QEMU has no %s: find the Debian package that ships it with apt-file search %s", m[1], m[1])
}
