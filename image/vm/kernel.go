package vm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// KernelMeta is the Debian meta package whose dependency names the
// current arm64 kernel image package.
const KernelMeta = "linux-image-arm64"

// Kernel is an unpacked Debian arm64 kernel package with modules.dep.
type Kernel struct {
	// Version is the module directory name, e.g. "6.1.0-57-arm64".
	Version string
	// Image is the kernel image (an uncompressed arm64 Image that
	// qemu -kernel boots directly).
	Image string
	// ModDir is lib/modules/<Version> inside the unpacked package.
	ModDir string
	// Package is the package the kernel came from.
	Package string
}

// Fetcher downloads arm64 Debian packages and unpacks them into Cache,
// once: later calls reuse the cache and need no network.
type Fetcher struct {
	// Cache is the folder for the .deb files (Cache/debs) and their
	// unpacked trees (Cache/<package>).
	Cache string
	// Apt is where the packages come from.
	Apt Apt
	// Pins holds exact versions by package name (see ReadPins): a pinned
	// package is fetched at its version, any other at apt's candidate,
	// and a pinned linux-image-*-arm64 is the kernel.
	Pins map[string]string
}

// Kernel fetches the kernel: the pinned linux-image-*-arm64 package, else
// the one a cached .deb names (offline reruns), else the one
// linux-image-arm64 depends on. It unpacks it and generates modules.dep
// with depmod -b (the .deb ships none).
func (f Fetcher) Kernel(ctx context.Context) (*Kernel, error) {
	pkg, err := f.kernelPackage(ctx)
	if err != nil {
		return nil, err
	}
	return f.OpenKernel(ctx, pkg)
}

// OpenKernel is Kernel for a named package such as
// "linux-image-6.1.0-57-arm64".
func (f Fetcher) OpenKernel(ctx context.Context, pkg string) (*Kernel, error) {
	root, err := f.Package(ctx, pkg)
	if err != nil {
		return nil, err
	}
	ver := strings.TrimPrefix(pkg, "linux-image-")
	k := &Kernel{
		Version: ver,
		Image:   filepath.Join(root, "boot", "vmlinuz-"+ver),
		ModDir:  filepath.Join(root, "lib", "modules", ver),
		Package: pkg,
	}
	if _, err := os.Stat(k.Image); err != nil {
		return nil, fmt.Errorf("vm: kernel %s: no image: %w", pkg, err)
	}
	if _, err := os.Stat(filepath.Join(k.ModDir, "modules.dep")); err != nil {
		if _, err := command(ctx, "", "depmod", "-b", root, ver); err != nil {
			return nil, fmt.Errorf("vm: kernel %s: %w", pkg, err)
		}
	}
	return k, nil
}

// kernelPackage names the concrete kernel package.
func (f Fetcher) kernelPackage(ctx context.Context) (string, error) {
	var pinned []string
	for name := range f.Pins {
		if strings.HasPrefix(name, "linux-image-") && strings.HasSuffix(name, "-arm64") && name != KernelMeta {
			pinned = append(pinned, name)
		}
	}
	switch len(pinned) {
	case 1:
		return pinned[0], nil
	case 0:
	default:
		slices.Sort(pinned)
		return "", fmt.Errorf("vm: the pins name %d kernels (%s); keep one", len(pinned), strings.Join(pinned, ", "))
	}
	m, _ := filepath.Glob(filepath.Join(f.Cache, "debs", "linux-image-*-arm64_*_arm64.deb"))
	if len(m) > 0 {
		name, _, _ := strings.Cut(filepath.Base(m[len(m)-1]), "_")
		return name, nil
	}
	if err := f.Apt.prepare(ctx); err != nil {
		return "", err
	}
	out, err := command(ctx, "", "apt-cache", append(f.Apt.options(), "depends", f.Apt.name(KernelMeta))...)
	if err != nil {
		return "", fmt.Errorf("vm: find kernel package (%s): %w", f.Apt.hint(), err)
	}
	pkg, err := parseDepends(out)
	if err != nil {
		return "", fmt.Errorf("vm: find kernel package: %s: %w (%s)", KernelMeta, err, f.Apt.hint())
	}
	return pkg, nil
}

// Busybox fetches busybox-static and returns the path of its static
// busybox binary.
func (f Fetcher) Busybox(ctx context.Context) (string, error) {
	root, err := f.Package(ctx, "busybox-static")
	if err != nil {
		return "", err
	}
	bb := filepath.Join(root, "bin", "busybox")
	if _, err := os.Stat(bb); err != nil {
		return "", fmt.Errorf("vm: busybox: %w", err)
	}
	return bb, nil
}

// Package fetches the arm64 package pkg (at its pinned version, if any),
// unpacks it into Cache/pkg and returns that folder.
func (f Fetcher) Package(ctx context.Context, pkg string) (string, error) {
	deb, err := f.Apt.download(ctx, filepath.Join(f.Cache, "debs"), pkg, f.Pins[pkg])
	if err != nil {
		return "", err
	}
	root := filepath.Join(f.Cache, pkg)
	if err := extract(ctx, deb, root); err != nil {
		return "", err
	}
	return root, nil
}

// ReadPins reads a package list of "name version" lines (blank lines and
// # comments ignored), such as image/debian/packages.lock.
func ReadPins(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("vm: pins: %w", err)
	}
	return parsePins(path, string(b))
}

// parsePins parses the text of a package list read from path.
func parsePins(path, text string) (map[string]string, error) {
	pins := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("vm: pins: %s:%d: want \"name version\", got %q", path, i+1, line)
		}
		if v, dup := pins[f[0]]; dup && v != f[1] {
			return nil, fmt.Errorf("vm: pins: %s:%d: %s pinned twice (%s and %s)", path, i+1, f[0], v, f[1])
		}
		pins[f[0]] = f[1]
	}
	return pins, nil
}
