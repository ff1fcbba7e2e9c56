package rootfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrybootOnce runs stage 1's one-shot trial choice on a folder in
// place of the boot partition (mount and modprobe stubbed): the slot the
// updater wrote is taken once, and the file is gone for the next boot.
func TestTrybootOnce(t *testing.T) {
	t.Parallel()
	init, err := os.ReadFile(filepath.Join(board(t), "initramfs", "init"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(init)
	start, end := strings.Index(src, "tryboot_once() {"), strings.Index(src, "# u32le N")
	if start < 0 || end < start {
		t.Fatal("stage-1 init: tryboot_once not found")
	}
	dir := t.TempDir()
	boot := filepath.Join(dir, "boot")
	os.MkdirAll(filepath.Join(boot, "openlolo"), 0o755)
	os.WriteFile(filepath.Join(boot, "openlolo", "tryboot"), []byte("B\r\n"), 0o644)
	fn := strings.NewReplacer("/bootpart", boot, "/proc/device-tree", filepath.Join(dir, "no-dt")).Replace(src[start:end])
	prog := "log() { echo \"log: $*\" >&2; }\nmodprobe() { :; }\numount() { :; }\nmount() { [ ! -e " + filepath.Join(dir, "nomount") + " ]; }\n" + fn +
		"\necho \"first=$(tryboot_once /dev/vda1)\"\necho \"second=$(tryboot_once /dev/vda1)\"\n" +
		"echo A > " + filepath.Join(boot, "openlolo", "tryboot") + "; touch " + filepath.Join(dir, "nomount") + "\necho \"unmountable=$(tryboot_once /dev/vda1)\"\n"
	out, err := exec.Command("sh", "-c", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"first=B\n", "second=\n", "unmountable=\n", "log: one-shot trial: cannot mount the boot partition /dev/vda1"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestTrialBoot runs lib.sh's committed_slot and trial_boot against
// config.txt files as the updater writes them.
func TestTrialBoot(t *testing.T) {
	t.Parallel()
	lib, err := os.ReadFile(script(t, "lib.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.txt")
	src := strings.ReplaceAll(string(lib), "/boot/config.txt", cfg)
	tests := []struct {
		config, slot string
		committed    string
		trial        bool
	}{
		{"arm_64bit=1\n", "A", "A", false},
		{"arm_64bit=1\n", "B", "A", true},
		{"arm_64bit=1\n# openlolo: the committed slot (the updater rewrites from here on)\n[all]\nos_prefix=b/\n", "B", "B", false},
		{"arm_64bit=1\r\n[all]\r\nos_prefix=b/\r\n", "A", "B", true},
	}
	for _, tc := range tests {
		os.WriteFile(cfg, []byte(tc.config), 0o644)
		out, err := exec.Command("sh", "-c", src+"\nROOT_SLOT="+tc.slot+"\ncommitted_slot\ntrial_boot && echo trial || echo plain\n").CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		want := tc.committed + "\nplain\n"
		if tc.trial {
			want = tc.committed + "\ntrial\n"
		}
		if string(out) != want {
			t.Errorf("config %q running %s: got %q, want %q", tc.config, tc.slot, out, want)
		}
	}
}
