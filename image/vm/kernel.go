package vm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// FetchKernel downloads the kernel package that linux-image-arm64:arm64
// depends on into cacheDir (once), unpacks it and generates modules.dep
// with depmod -b (the .deb ships none). Later calls reuse the cache and
// need no network.
func FetchKernel(ctx context.Context, cacheDir string) (*Kernel, error) {
	pkg, err := kernelPackage(ctx, cacheDir)
	if err != nil {
		return nil, err
	}
	return OpenKernel(ctx, cacheDir, pkg)
}

// OpenKernel is FetchKernel for a named package such as
// "linux-image-6.1.0-57-arm64".
func OpenKernel(ctx context.Context, cacheDir, pkg string) (*Kernel, error) {
	deb, err := download(ctx, filepath.Join(cacheDir, "debs"), pkg)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(cacheDir, pkg)
	if err := extract(ctx, deb, root); err != nil {
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

// kernelPackage names the concrete kernel package: from the cache when a
// kernel .deb is there (offline reruns), else from apt.
func kernelPackage(ctx context.Context, cacheDir string) (string, error) {
	m, _ := filepath.Glob(filepath.Join(cacheDir, "debs", "linux-image-*-arm64_*_arm64.deb"))
	if len(m) > 0 {
		name, _, _ := strings.Cut(filepath.Base(m[len(m)-1]), "_")
		return name, nil
	}
	out, err := command(ctx, "", "apt-cache", "depends", KernelMeta+":arm64")
	if err != nil {
		return "", fmt.Errorf("vm: find kernel package (%s): %w", addArch, err)
	}
	pkg, err := parseDepends(out)
	if err != nil {
		return "", fmt.Errorf("vm: find kernel package: %s:arm64: %w (%s)", KernelMeta, err, addArch)
	}
	return pkg, nil
}

// FetchBusybox downloads and unpacks busybox-static:arm64 into cacheDir
// (once) and returns the path of the static busybox binary.
func FetchBusybox(ctx context.Context, cacheDir string) (string, error) {
	root, err := FetchPackage(ctx, cacheDir, "busybox-static")
	if err != nil {
		return "", err
	}
	bb := filepath.Join(root, "bin", "busybox")
	if _, err := os.Stat(bb); err != nil {
		return "", fmt.Errorf("vm: busybox: %w", err)
	}
	return bb, nil
}

// FetchPackage downloads and unpacks the arm64 Debian package pkg into
// cacheDir/pkg (once) and returns that folder.
func FetchPackage(ctx context.Context, cacheDir, pkg string) (string, error) {
	deb, err := download(ctx, filepath.Join(cacheDir, "debs"), pkg)
	if err != nil {
		return "", err
	}
	root := filepath.Join(cacheDir, pkg)
	if err := extract(ctx, deb, root); err != nil {
		return "", err
	}
	return root, nil
}
