package rootfs

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// board is buildroot/board/openlolo, from this package's folder.
func board(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "buildroot", "board", "openlolo")
}

func script(t *testing.T, name string) string {
	return filepath.Join(board(t), "rootfs-overlay", "usr", "libexec", "openlolo", name)
}

func TestWifiConf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, txt string
		want      []string // lines the conf must hold
		wantErr   string
	}{
		{name: "wpa2", txt: "ssid=Home\npsk=longenough\ncountry=gb\n",
			want: []string{"country=GB", "  ssid=486f6d65", `  psk="longenough"`}},
		{name: "windows line ends and spaces", txt: "# my network\r\nssid = My \"Net\"\r\npsk = pa=ss\\word\"1\r\n",
			want: []string{"  ssid=4d7920224e657422", `  psk="pa=ss\word"1"`}},
		{name: "open network", txt: "ssid=Cafe\n", want: []string{"  key_mgmt=NONE"}},
		{name: "no ssid", txt: "psk=longenough\n", wantErr: "no ssid= line"},
		{name: "short psk", txt: "ssid=a\npsk=short\n", wantErr: "8 to 63 characters (it has 5)"},
		{name: "long psk", txt: "ssid=a\npsk=" + strings.Repeat("x", 64) + "\n", wantErr: "it has 64"},
		{name: "bad country", txt: "ssid=a\ncountry=GBR\n", wantErr: "two-letter code"},
		{name: "long ssid", txt: "ssid=" + strings.Repeat("n", 33) + "\n", wantErr: "at most 32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := filepath.Join(t.TempDir(), "wifi.txt")
			os.WriteFile(f, []byte(tc.txt), 0o600)
			var out, errb bytes.Buffer
			cmd := exec.Command("sh", script(t, "wifi-conf"), f)
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(errb.String(), tc.wantErr) {
					t.Fatalf("err %v, stderr %q; want exit 1 with %q", err, errb.String(), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %s", err, errb.String())
			}
			lines := strings.Split(out.String(), "\n")
			for _, w := range tc.want {
				found := false
				for _, l := range lines {
					found = found || l == w
				}
				if !found {
					t.Errorf("conf lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
	if err := exec.Command("sh", script(t, "wifi-conf"), "/nonexistent/wifi.txt").Run(); err == nil {
		t.Error("wifi-conf accepted a missing file")
	}
}

func TestLogfileRotates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "messages")
	// 4000 lines of 100 bytes through a 64 KiB limit: rotation several times, three old copies
	var in bytes.Buffer
	for i := 0; i < 4000; i++ {
		in.WriteString(strings.Repeat("x", 99) + "\n")
	}
	cmd := exec.Command("sh", script(t, "logfile"), log, "65536")
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, name := range []string{"messages", "messages.1", "messages.2", "messages.3"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.Size() > 65536+64*100 {
			t.Errorf("%s is %d bytes; the limit is 64 KiB (checked every 64 lines)", name, st.Size())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "messages.4")); err == nil {
		t.Error("a fourth old copy was kept")
	}
}

func TestBoxID(t *testing.T) {
	t.Parallel()
	need(t, "hexdump") // the random id, as on the box
	tests := []struct {
		name, cpuinfo string
		want          string // "" = random, 4 hex digits, kept
	}{
		{"pi serial", "Hardware\t: BCM2835\nSerial\t\t: 10000000ABCD1f2e\n", "1f2e"},
		{"no serial", "processor\t: 0\n", ""},
		{"zero serial", "Serial\t\t: 0000000000000000\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cpuinfo := filepath.Join(dir, "cpuinfo")
			os.WriteFile(cpuinfo, []byte(tc.cpuinfo), 0o644)
			os.MkdirAll(filepath.Join(dir, "data"), 0o755)
			// lib.sh reads fixed paths; point them at the test's files
			lib, err := os.ReadFile(script(t, "lib.sh"))
			if err != nil {
				t.Fatal(err)
			}
			s := strings.NewReplacer("/proc/cpuinfo", cpuinfo, "/proc/device-tree/serial-number", filepath.Join(dir, "none"),
				"/data/", filepath.Join(dir, "data")+"/").Replace(string(lib))
			run := func() string {
				out, err := exec.Command("sh", "-c", s+"\nbox_id").CombinedOutput()
				if err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				return strings.TrimSpace(string(out))
			}
			got := run()
			if tc.want != "" && got != tc.want {
				t.Errorf("box_id = %q, want %q", got, tc.want)
			}
			if len(got) != 4 || strings.Trim(got, "0123456789abcdef") != "" {
				t.Errorf("box_id = %q, want 4 hex digits", got)
			}
			if again := run(); again != got {
				t.Errorf("box_id changed from %q to %q between boots", got, again)
			}
		})
	}
}

// TestGrowData runs the stage-1 init's MBR rewrite on a disk image file:
// partition 4's size must reach the end of the disk, the rest untouched.
func TestGrowData(t *testing.T) {
	t.Parallel()
	init, err := os.ReadFile(filepath.Join(board(t), "initramfs", "init"))
	if err != nil {
		t.Fatal(err)
	}
	// take the helper functions only (u32le, rd32, grow_data)
	src := string(init)
	start := strings.Index(src, "# u32le N")
	end := strings.Index(src, "log \"start,")
	if start < 0 || end < start {
		t.Fatal("stage-1 init: helper functions not found")
	}
	dir := t.TempDir()
	disk := filepath.Join(dir, "mmcblk0")
	mbr := make([]byte, 512)
	entry := func(i int, start, size uint32) {
		e := mbr[446+16*i:]
		e[4] = 0x83
		binary.LittleEndian.PutUint32(e[8:], start)
		binary.LittleEndian.PutUint32(e[12:], size)
	}
	entry(0, 8192, 262144)
	entry(3, 794624, 131072)
	mbr[510], mbr[511] = 0x55, 0xAA
	os.WriteFile(disk, mbr, 0o644)
	sys := filepath.Join(dir, "sys", "block", "mmcblk0")
	os.MkdirAll(sys, 0o755)
	const total = 2097152 // sectors: a 1 GiB card
	os.WriteFile(filepath.Join(sys, "size"), []byte("2097152\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "run", "openlolo"), 0o755)
	prog := "log() { echo \"$*\"; }\nblockdev() { echo blockdev \"$@\"; }\nDISK=mmcblk0\n" +
		strings.NewReplacer("/dev/$DISK", disk, "/sys/block/$DISK", sys, "/run/openlolo", filepath.Join(dir, "run", "openlolo")).Replace(src[start:end]) +
		"\ngrow_data\ngrow_data\n"
	out, err := exec.Command("sh", "-c", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got, _ := os.ReadFile(disk)
	if size := binary.LittleEndian.Uint32(got[446+48+12:]); size != total-794624 {
		t.Errorf("partition 4 size = %d sectors, want %d (to the end of the disk)\n%s", size, total-794624, out)
	}
	if !bytes.Equal(got[:446+48+12], mbr[:446+48+12]) || !bytes.Equal(got[446+64:], mbr[446+64:]) {
		t.Error("grow_data changed bytes other than partition 4's size")
	}
	if n := strings.Count(string(out), "growing data partition"); n != 1 {
		t.Errorf("grew %d times over two boots, want once:\n%s", n, out)
	}
}

// TestBoxName: the hostname rcS sets (and supervise passes to serve as
// --name) is the name the owner gave on the Settings page when serve kept
// a valid one, else openlolo-<box_id>; a damaged file never reaches serve,
// which would refuse to start with a bad --name.
func TestBoxName(t *testing.T) {
	t.Parallel()
	need(t, "hexdump")
	tests := []struct {
		name  string
		saved *string // nil: no file
		want  string  // "" = openlolo-1f2e
	}{
		{"no saved name", nil, ""},
		{"renamed", ptr("kitchen-phone\n"), "kitchen-phone"},
		{"no newline", ptr("k2"), "k2"},
		{"empty", ptr(""), ""},
		{"upper case", ptr("Kitchen"), ""},
		{"leading hyphen", ptr("-box"), ""},
		{"trailing hyphen", ptr("box-"), ""},
		{"a dot", ptr("box.local"), ""},
		{"64 characters", ptr(strings.Repeat("a", 64)), ""},
		{"63 characters", ptr(strings.Repeat("a", 63)), strings.Repeat("a", 63)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cpuinfo := filepath.Join(dir, "cpuinfo")
			os.WriteFile(cpuinfo, []byte("Serial\t\t: 10000000ABCD1f2e\n"), 0o644)
			os.MkdirAll(filepath.Join(dir, "data", "openlolo"), 0o755)
			if tc.saved != nil {
				os.WriteFile(filepath.Join(dir, "data", "openlolo", "box-name"), []byte(*tc.saved), 0o644)
			}
			lib, err := os.ReadFile(script(t, "lib.sh"))
			if err != nil {
				t.Fatal(err)
			}
			s := strings.NewReplacer("/proc/cpuinfo", cpuinfo, "/proc/device-tree/serial-number", filepath.Join(dir, "none"),
				"/data/", filepath.Join(dir, "data")+"/").Replace(string(lib))
			out, err := exec.Command("sh", "-c", s+"\nbox_name").CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			want := tc.want
			if want == "" {
				want = "openlolo-1f2e"
			}
			if got := strings.TrimSpace(string(out)); got != want {
				t.Errorf("box_name = %q, want %q", got, want)
			}
		})
	}
}

func ptr(s string) *string { return &s }
