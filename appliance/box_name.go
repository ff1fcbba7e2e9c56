package appliance

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openlolo/openlolo/appliance/owner"
	boxtls "github.com/openlolo/openlolo/tls"
)

// NamePrefix starts every default box name.
const NamePrefix = "openlolo-"

// idFile holds the random name suffix of a box without a board serial.
const idFile = "box-id"

// CheckName reports whether name can be the box's name: a DNS label
// (lower-case letters, digits and inner hyphens, at most 63), since the
// box answers as <name>.local.
func CheckName(name string) error {
	ok := len(name) >= 1 && len(name) <= 63 && name[0] != '-' && name[len(name)-1] != '-'
	for _, c := range name {
		ok = ok && (c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')
	}
	if !ok {
		return fmt.Errorf("appliance: box name %q is not a DNS label: use 1 to 63 lower-case letters, digits and inner hyphens, e.g. openlolo-kitchen", name)
	}
	return nil
}

// DefaultName returns "openlolo-xxxx": xxxx are the last four hex digits
// of the board serial in cpuinfo (the contents of /proc/cpuinfo), or, on a
// machine without one, four random hex digits made once and kept in
// stateDir.
func DefaultName(stateDir string, cpuinfo []byte) (string, error) {
	if s := boardSerial(cpuinfo); s != "" {
		return NamePrefix + s[len(s)-4:], nil
	}
	path := filepath.Join(stateDir, idFile)
	b, err := os.ReadFile(path)
	if err == nil {
		id := strings.TrimSpace(string(b))
		if len(id) == 4 && isHex(id) {
			return NamePrefix + id, nil
		}
		return "", fmt.Errorf("appliance: %s holds %q, not 4 hex digits; delete it to make a new box name", path, id)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("appliance: read box id: %w", err)
	}
	var r [2]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("appliance: box id: %w", err)
	}
	id := hex.EncodeToString(r[:])
	if err := boxtls.WriteFileAtomic(path, []byte(id+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("appliance: store box id: %w", err)
	}
	return NamePrefix + id, nil
}

// boardSerial returns the lower-case "Serial" of a Raspberry Pi's
// /proc/cpuinfo, or "" when there is none (or it is all zeros, as under
// emulation).
func boardSerial(cpuinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(key) != "Serial" {
			continue
		}
		val = strings.ToLower(strings.TrimSpace(val))
		if len(val) < 4 || !isHex(val) || strings.Trim(val, "0") == "" {
			return ""
		}
		return val
	}
	return ""
}

// boardModel returns the "Model" line of a Raspberry Pi's /proc/cpuinfo
// (e.g. "Raspberry Pi Zero 2 W Rev 1.0"), or "" elsewhere.
func boardModel(cpuinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		if key, val, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(key) == "Model" {
			return strings.TrimSpace(val)
		}
	}
	return ""
}

// liveFPS is the live view's default rate on this board (its cpuinfo's
// Model); the owner package's default when cpuinfo cannot be read.
func (b *Box) liveFPS() int {
	cpuinfo, err := os.ReadFile(b.cfg.CPUInfo)
	if err != nil {
		return owner.DefaultLiveFPS
	}
	return liveFPSFor(boardModel(cpuinfo))
}

// liveFPSFor is the live view's default pictures per second on a board:
// 5 where a picture costs a Cortex-A53 core about 8 to 10 times what it
// costs a desktop core (the Zero 2 W and the Pi 3), else the owner
// package's default. The owner can choose another on Settings.
func liveFPSFor(model string) int {
	for _, slow := range []string{"Raspberry Pi Zero 2", "Raspberry Pi 3"} {
		if strings.HasPrefix(model, slow) {
			return 5
		}
	}
	return owner.DefaultLiveFPS
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return s != ""
}

// boxName is, in this order: Config.Name (serve --name: the command line
// is the stronger statement, so a box started with --name comes back
// under that name even after the owner renamed it on the Settings page),
// the name the owner gave on the Settings page (kept in StateDir/box-name),
// or DefaultName.
func boxName(cfg Config) (string, error) {
	if cfg.Name != "" {
		return cfg.Name, CheckName(cfg.Name)
	}
	if name, err := storedName(cfg.StateDir); err != nil || name != "" {
		return name, err
	}
	cpuinfo, err := os.ReadFile(cfg.CPUInfo)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("appliance: read %s: %w", cfg.CPUInfo, err)
	}
	return DefaultName(cfg.StateDir, cpuinfo)
}
