package card

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mbr builds sector 0 with the given signature and entries.
func mbr(sig uint32, entries ...[16]byte) []byte {
	b := make([]byte, SectorSize)
	binary.LittleEndian.PutUint32(b[440:], sig)
	for i, e := range entries {
		copy(b[446+16*i:], e[:])
	}
	b[510], b[511] = 0x55, 0xAA
	return b
}

func entry(boot, typ byte, start, sectors uint32) [16]byte {
	var e [16]byte
	e[0], e[4] = boot, typ
	binary.LittleEndian.PutUint32(e[8:], start)
	binary.LittleEndian.PutUint32(e[12:], sectors)
	return e
}

func TestParseMBR(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	card := mbr(0x12d83444,
		entry(0x80, 0x0c, 8192, 262144),
		entry(0, 0x83, 270336, 262144),
		entry(0, 0x83, 532480, 262144),
		entry(0, 0x83, 794624, 131072))
	tests := []struct {
		name    string
		sector  []byte
		size    int64
		want    []Partition
		wantErr string
	}{
		{name: "openlolo card", sector: card, size: 452 * mib, want: []Partition{
			{1, 0x0c, true, 8192, 262144}, {2, 0x83, false, 270336, 262144},
			{3, 0x83, false, 532480, 262144}, {4, 0x83, false, 794624, 131072}}},
		{name: "gap in the table", sector: mbr(1, entry(0, 0x83, 2048, 10), [16]byte{}, entry(0, 0x83, 4096, 10)), size: mib * 4,
			want: []Partition{{1, 0x83, false, 2048, 10}, {3, 0x83, false, 4096, 10}}},
		{name: "short", sector: card[:100], size: 100, wantErr: "truncated"},
		{name: "no boot signature", sector: make([]byte, 512), size: mib, wantErr: "0x55AA"},
		{name: "truncated image", sector: card, size: 200 * mib, wantErr: "partition 2 ends"},
		{name: "gpt", sector: mbr(0, entry(0, 0xee, 1, 100)), size: mib, wantErr: "GPT"},
		{name: "empty table", sector: mbr(7), size: mib, wantErr: "no partitions"},
		{name: "bad boot flag", sector: mbr(7, entry(0x12, 0x83, 2048, 8)), size: mib * 2, wantErr: "boot flag"},
		{name: "zero start", sector: mbr(7, entry(0, 0x83, 0, 8)), size: mib, wantErr: "damaged"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseMBR(tc.sector, tc.size)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Partitions) != len(tc.want) {
				t.Fatalf("partitions = %+v, want %+v", got.Partitions, tc.want)
			}
			for i := range tc.want {
				if got.Partitions[i] != tc.want[i] {
					t.Errorf("partition %d = %+v, want %+v", i, got.Partitions[i], tc.want[i])
				}
			}
		})
	}
	tb, err := ParseMBR(card, 452*mib)
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.PartUUID(2); got != "12d83444-02" {
		t.Errorf("PartUUID(2) = %q, want 12d83444-02", got)
	}
	if _, err := tb.Partition(5); err == nil {
		t.Error("Partition(5) found a partition")
	}
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (apt-get install dosfstools mtools e2fsprogs): %v", tool, err)
		}
	}
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// TestFiles builds a real four-partition card (FAT32 boot, two empty roots,
// ext4 data with a file) and reads files back from it.
func TestFiles(t *testing.T) {
	t.Parallel()
	need(t, "mkfs.vfat", "mcopy", "mtype", "mke2fs", "debugfs")
	dir := t.TempDir()
	bootImg, dataImg := filepath.Join(dir, "boot.vfat"), filepath.Join(dir, "data.ext4")
	run(t, "mkfs.vfat", "-C", "-F", "32", "-s", "1", bootImg, "65536")
	src := filepath.Join(dir, "setup-code.txt")
	os.WriteFile(src, []byte("BCDF-GHJK\n"), 0o600)
	run(t, "mmd", "-i", bootImg, "::/openlolo")
	run(t, "mcopy", "-i", bootImg, src, "::/openlolo/setup-code.txt")
	seed := filepath.Join(dir, "seed", "openlolo")
	os.MkdirAll(seed, 0o700)
	os.WriteFile(filepath.Join(seed, "box.db"), []byte("sqlite bytes"), 0o600)
	run(t, "mke2fs", "-q", "-t", "ext4", "-d", filepath.Dir(seed), dataImg, "8M")

	img := filepath.Join(dir, "card.img")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	// boot at 1 MiB (64 MiB), roots 1 MiB each, data 8 MiB
	parts := []struct {
		start, sectors uint32
		file           string
	}{{2048, 131072, bootImg}, {133120, 2048, ""}, {135168, 2048, ""}, {137216, 16384, dataImg}}
	var es [][16]byte
	for i, p := range parts {
		typ := byte(0x83)
		if i == 0 {
			typ = 0x0c
		}
		es = append(es, entry(0, typ, p.start, p.sectors))
		if p.file != "" {
			b, err := os.ReadFile(p.file)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(b, int64(p.start)*SectorSize); err != nil {
				t.Fatal(err)
			}
		}
	}
	f.WriteAt(mbr(0xabcdef01, es[0], es[1], es[2], es[3]), 0)
	f.Truncate(int64(137216+16384) * SectorSize)
	f.Close()

	c, err := Open(img)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := c.BootFile(ctx, "openlolo/setup-code.txt")
	if err != nil || string(got) != "BCDF-GHJK\n" {
		t.Errorf("BootFile = %q, %v; want the setup code", got, err)
	}
	if _, err := c.BootFile(ctx, "openlolo/wifi.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("BootFile(missing) err = %v, want os.ErrNotExist", err)
	}
	out := t.TempDir()
	paths, err := c.DataFiles(ctx, out, "/openlolo/box.db")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(paths[0]); string(b) != "sqlite bytes" {
		t.Errorf("DataFiles read %q", b)
	}
	if _, err := c.DataFiles(ctx, out, "/openlolo/missing.db"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("DataFiles(missing) err = %v, want os.ErrNotExist", err)
	}
	if _, err := Open(filepath.Join(dir, "seed", "openlolo", "box.db")); err == nil {
		t.Error("Open accepted a file that is not a disk image")
	}
}

// Without mtools or e2fsprogs on the host, reading a card says which
// Debian package to install.
func TestFilesNameMissingPackage(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "card.img")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(mbr(0xabcdef01, entry(0, 0x0c, 2048, 2048), entry(0, 0x83, 4096, 2048), entry(0, 0x83, 6144, 2048), entry(0, 0x83, 8192, 2048)), 0)
	f.Truncate(10240 * SectorSize)
	f.Close()
	c, err := Open(img)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	ctx := context.Background()
	if _, err := c.BootFile(ctx, "openlolo/setup-code.txt"); err == nil || !strings.Contains(err.Error(), "install Debian's mtools") {
		t.Errorf("BootFile without mtype: err = %v, want the package mtools", err)
	}
	if _, err := c.DataFiles(ctx, t.TempDir(), "/openlolo/box.db"); err == nil || !strings.Contains(err.Error(), "install Debian's e2fsprogs") {
		t.Errorf("DataFiles without debugfs: err = %v, want the package e2fsprogs", err)
	}
}
