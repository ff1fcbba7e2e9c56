package vm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// addArch is the sentence shown when apt has no arm64 packages.
const addArch = "enable arm64 packages with: dpkg --add-architecture arm64 && apt-get update"

// command runs name with args in dir and returns its standard output; the
// error carries the command line and its standard error.
func command(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), notFound(name, err), strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// dependsRe finds the first Depends line of `apt-cache depends`.
var dependsRe = regexp.MustCompile(`(?m)^\s*Depends:\s*(\S+)`)

// parseDepends returns the first dependency in `apt-cache depends` output,
// without an architecture suffix.
func parseDepends(out []byte) (string, error) {
	m := dependsRe.FindSubmatch(out)
	if m == nil {
		return "", errors.New("no Depends line")
	}
	name, _, _ := strings.Cut(string(m[1]), ":")
	return name, nil
}

// download fetches pkg (an arm64 package name, e.g. "busybox-static") into
// dir with apt-get download unless a matching .deb is already there, and
// returns the .deb's path.
func download(ctx context.Context, dir, pkg string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("vm: download %s: %w", pkg, err)
	}
	if deb, ok := findDeb(dir, pkg); ok {
		return deb, nil
	}
	if _, err := command(ctx, dir, "apt-get", "download", pkg+":arm64"); err != nil {
		return "", fmt.Errorf("vm: download %s (%s): %w", pkg, addArch, err)
	}
	deb, ok := findDeb(dir, pkg)
	if !ok {
		return "", fmt.Errorf("vm: download %s: apt-get download left no %s_*_arm64.deb in %s", pkg, pkg, dir)
	}
	return deb, nil
}

// findDeb returns the newest-named .deb for pkg in dir.
func findDeb(dir, pkg string) (string, bool) {
	m, _ := filepath.Glob(filepath.Join(dir, pkg+"_*_arm64.deb"))
	if len(m) == 0 {
		return "", false
	}
	return m[len(m)-1], true
}

// extract unpacks deb into dir (dpkg-deb -x) once: a stamp file marks a
// complete extraction, so an interrupted one is redone.
func extract(ctx context.Context, deb, dir string) error {
	stamp := filepath.Join(dir, ".extracted")
	if _, err := os.Stat(stamp); err == nil {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("vm: extract %s: %w", deb, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("vm: extract %s: %w", deb, err)
	}
	if _, err := command(ctx, "", "dpkg-deb", "-x", deb, dir); err != nil {
		return fmt.Errorf("vm: extract: %w", err)
	}
	return os.WriteFile(stamp, []byte(filepath.Base(deb)+"\n"), 0o644)
}
