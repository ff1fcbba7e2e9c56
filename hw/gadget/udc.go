package gadget

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DefaultUDCDir is where the kernel lists USB device controllers.
const DefaultUDCDir = "/sys/class/udc"

// ErrNoUDC: the machine has no USB device controller (no dwc2 overlay, or
// not a board that can be a USB device).
var ErrNoUDC = errors.New("gadget: no USB device controller")

// UDC states as /sys/class/udc/<name>/state spells them (the subset the
// box names).
const (
	StateConfigured  = "configured"
	StateNotAttached = "not attached"
)

// UDCs lists the USB device controllers in dir ("" means DefaultUDCDir),
// sorted by name.
func UDCs(dir string) ([]string, error) {
	if dir == "" {
		dir = DefaultUDCDir
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gadget: list UDCs: %w", err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out, nil
}

// PickUDC returns want if dir lists it, the first UDC when want is "", or
// an error wrapping ErrNoUDC that says what to do.
func PickUDC(dir, want string) (string, error) {
	udcs, err := UDCs(dir)
	if err != nil {
		return "", err
	}
	if len(udcs) == 0 {
		return "", fmt.Errorf("%w: add dtoverlay=dwc2 to config.txt and use the Pi's USB-C/OTG port (a Pi 3 cannot be a USB device)", ErrNoUDC)
	}
	if want == "" {
		return udcs[0], nil
	}
	for _, u := range udcs {
		if u == want {
			return u, nil
		}
	}
	return "", fmt.Errorf("%w: %q is not one of %s", ErrNoUDC, want, strings.Join(udcs, ", "))
}

// UDCState reads the state of udc ("configured", "not attached", …); an
// absent UDC reads as "".
func UDCState(dir, udc string) string {
	if dir == "" {
		dir = DefaultUDCDir
	}
	b, err := os.ReadFile(filepath.Join(dir, udc, "state"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// waitConfigured polls state until it is "configured", ctx ends or d
// passes; it returns the last state seen.
func waitConfigured(ctx context.Context, state func() string, d time.Duration) (string, bool) {
	deadline := time.Now().Add(d)
	for {
		s := state()
		if s == StateConfigured {
			return s, true
		}
		if time.Now().After(deadline) {
			return s, false
		}
		t := time.NewTimer(20 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return s, false
		case <-t.C:
		}
	}
}

// waitFile waits until path exists (device nodes appear a moment after
// bind, when devtmpfs creates them).
func waitFile(ctx context.Context, path string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		_, err := os.Stat(path)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
