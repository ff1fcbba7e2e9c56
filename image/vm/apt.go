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

// Apt is where arm64 packages come from. The zero value is the host's
// apt configuration (its sources, with arm64 added as a foreign
// architecture). With SourceList set, a private configuration reads only
// that sources file and keeps its package lists under Dir, as
// image/mkimage.sh does: the host's sources and architectures then change
// nothing, so every machine gets the same packages.
type Apt struct {
	// SourceList is a sources.list file; "" means the host's apt setup.
	SourceList string
	// Dir holds the private configuration's lists and cache.
	Dir string
}

// private reports whether a uses its own configuration.
func (a Apt) private() bool { return a.SourceList != "" }

// options are the apt command-line options of a private configuration.
func (a Apt) options() []string {
	if !a.private() {
		return nil
	}
	var o []string
	for _, kv := range []string{
		"Dir::Etc::SourceList=" + a.SourceList,
		"Dir::Etc::SourceParts=/nonexistent",
		"Dir::State=" + filepath.Join(a.Dir, "state"),
		"Dir::State::Lists=" + filepath.Join(a.Dir, "lists"),
		"Dir::State::status=" + filepath.Join(a.Dir, "status"),
		"Dir::Cache=" + filepath.Join(a.Dir, "cache"),
		"APT::Architecture=arm64",
		"APT::Architectures::=arm64",
		"Debug::NoLocking=1",
		"APT::Sandbox::User=root",
	} {
		o = append(o, "-o", kv)
	}
	return o
}

// name is pkg as this configuration asks for an arm64 package.
func (a Apt) name(pkg string) string {
	if a.private() {
		return pkg
	}
	return pkg + ":arm64"
}

// hint is the sentence shown when apt cannot find a package.
func (a Apt) hint() string {
	if a.private() {
		return "check the network and the sources in " + a.SourceList
	}
	return addArch
}

// prepare fetches a private configuration's package lists once.
func (a Apt) prepare(ctx context.Context) error {
	if !a.private() {
		return nil
	}
	lists := filepath.Join(a.Dir, "lists")
	if m, _ := filepath.Glob(filepath.Join(lists, "*_Packages")); len(m) > 0 {
		return nil
	}
	for _, d := range []string{filepath.Join(a.Dir, "state"), filepath.Join(lists, "partial"), filepath.Join(a.Dir, "cache", "archives", "partial")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("vm: apt lists: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(a.Dir, "status"), nil, 0o644); err != nil {
		return fmt.Errorf("vm: apt lists: %w", err)
	}
	if _, err := command(ctx, "", "apt-get", append(a.options(), "-qq", "update")...); err != nil {
		return fmt.Errorf("vm: apt lists from %s (%s): %w", a.SourceList, a.hint(), err)
	}
	return nil
}

// download fetches pkg (an arm64 package name, e.g. "busybox-static") at
// version ("" means apt's candidate) into dir with apt-get download unless
// a matching .deb is already there, and returns the .deb's path.
func (a Apt) download(ctx context.Context, dir, pkg, version string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("vm: download %s: %w", pkg, err)
	}
	if deb, ok := findDeb(dir, pkg, version); ok {
		return deb, nil
	}
	if err := a.prepare(ctx); err != nil {
		return "", err
	}
	want := a.name(pkg)
	if version != "" {
		want += "=" + version
	}
	if _, err := command(ctx, dir, "apt-get", append(a.options(), "download", want)...); err != nil {
		return "", fmt.Errorf("vm: download %s (%s): %w", want, a.hint(), err)
	}
	deb, ok := findDeb(dir, pkg, version)
	if !ok {
		return "", fmt.Errorf("vm: download %s: apt-get download left no %s_*_arm64.deb in %s", want, pkg, dir)
	}
	return deb, nil
}

// findDeb returns the .deb for pkg at version in dir, or with version ""
// the newest-named one.
func findDeb(dir, pkg, version string) (string, bool) {
	if version != "" {
		p := filepath.Join(dir, pkg+"_"+strings.ReplaceAll(version, ":", "%3a")+"_arm64.deb")
		_, err := os.Stat(p)
		return p, err == nil
	}
	m, _ := filepath.Glob(filepath.Join(dir, pkg+"_*_arm64.deb"))
	if len(m) == 0 {
		return "", false
	}
	return m[len(m)-1], true
}

// extract unpacks deb into dir (dpkg-deb -x) once: a stamp file names the
// .deb of a complete extraction, so an interrupted one, or one of another
// version, is redone.
func extract(ctx context.Context, deb, dir string) error {
	stamp := filepath.Join(dir, ".extracted")
	if b, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(b)) == filepath.Base(deb) {
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
