package appliance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner"
)

func TestBoardSerial(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cpuinfo, want string
	}{
		{"processor\t: 0\nHardware\t: BCM2835\nRevision\t: c03111\nSerial\t\t: 10000000a1b2c3d4\nModel\t\t: Raspberry Pi 4 Model B Rev 1.1\n", "10000000a1b2c3d4"},
		{"Serial\t\t: 00000000DEADBEEF\n", "00000000deadbeef"},
		{"Serial\t\t: 0000000000000000\n", ""}, // emulated boards
		{"processor\t: 0\nmodel name\t: Intel(R) Xeon(R)\n", ""},
		{"Serial\t\t: not-hex\n", ""},
		{"Serial: 12\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := boardSerial([]byte(tt.cpuinfo)); got != tt.want {
			t.Errorf("boardSerial(%q) = %q, want %q", tt.cpuinfo, got, tt.want)
		}
	}
}

// TestLiveFPSForBoard: the live view's default rate follows the board's
// cpuinfo Model: 5 on the Cortex-A53 boards, the owner default elsewhere
// (the Pi 4, a PC, an emulated board with no Model line).
func TestLiveFPSForBoard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cpuinfo string
		want    int
	}{
		{"Serial\t\t: 10000000a1b2c3d4\nModel\t\t: Raspberry Pi Zero 2 W Rev 1.0\n", 5},
		{"Model\t\t: Raspberry Pi 3 Model B Plus Rev 1.3\n", 5},
		{"Model\t\t: Raspberry Pi 4 Model B Rev 1.1\n", owner.DefaultLiveFPS},
		{"processor\t: 0\nmodel name\t: Intel(R) Xeon(R)\n", owner.DefaultLiveFPS},
		{"", owner.DefaultLiveFPS},
	}
	for _, tt := range tests {
		if got := liveFPSFor(boardModel([]byte(tt.cpuinfo))); got != tt.want {
			t.Errorf("live rate for %q = %d, want %d", tt.cpuinfo, got, tt.want)
		}
	}
}

func TestDefaultName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name, err := DefaultName(dir, []byte("Serial\t\t: 10000000a1b2c3d4\n"))
	if err != nil || name != "openlolo-c3d4" {
		t.Errorf("DefaultName with a serial = %q, %v, want openlolo-c3d4", name, err)
	}
	if _, err := os.Stat(filepath.Join(dir, idFile)); err == nil {
		t.Errorf("a box with a serial stored a random id")
	}

	first, err := DefaultName(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first, NamePrefix) || len(first) != len(NamePrefix)+4 || !isHex(first[len(NamePrefix):]) {
		t.Errorf("DefaultName without a serial = %q, want openlolo- and 4 hex digits", first)
	}
	if err := CheckName(first); err != nil {
		t.Errorf("default name %q fails CheckName: %v", first, err)
	}
	if again, _ := DefaultName(dir, nil); again != first {
		t.Errorf("DefaultName changed across calls: %q, then %q", first, again)
	}

	os.WriteFile(filepath.Join(dir, idFile), []byte("zz\n"), 0o644)
	if _, err := DefaultName(dir, nil); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("DefaultName with a damaged id file = %v, want an error saying what to do", err)
	}
	if _, err := DefaultName(filepath.Join(dir, "missing"), nil); err == nil {
		t.Errorf("DefaultName in a missing directory succeeded")
	}
}

func TestCheckName(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{
		"openlolo-ab12": true, "kitchen": true, "a": true, "0box": true,
		strings.Repeat("a", 63): true, strings.Repeat("a", 64): false,
		"": false, "-box": false, "box-": false, "Box": false, "box.local": false, "box_1": false, "bøx": false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}
