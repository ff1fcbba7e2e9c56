package update

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// box is a card in temporary files (the real [Card] over files instead of
// partitions) with a state directory and a database file.
type box struct {
	t        *testing.T
	dir      string
	card     *Card
	state    string
	reboots  chan string
	pub      ed25519.PublicKey
	key      ed25519.PrivateKey
	release  Release
	free     int64
	backupFn func(ctx context.Context, path string) error
}

const slotSize = 1 << 20

func newBox(t *testing.T) *box {
	t.Helper()
	dir := t.TempDir()
	b := &box{t: t, dir: dir, state: filepath.Join(dir, "state"), reboots: make(chan string, 4), free: 1 << 30,
		release: Release{Version: "v1", Board: "rpi", Built: 1000}}
	b.pub, b.key = testKey(1)
	mbr := make([]byte, 512)
	copy(mbr[440:], []byte{0x78, 0x56, 0x34, 0x12})
	must(t, os.WriteFile(filepath.Join(dir, "disk"), mbr, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "rootA"), bytes.Repeat([]byte("A"), slotSize), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "rootB"), make([]byte, slotSize), 0o644))
	boot := filepath.Join(dir, "boot")
	must(t, os.MkdirAll(filepath.Join(boot, "openlolo"), 0o755))
	must(t, os.WriteFile(filepath.Join(boot, "config.txt"), []byte("arm_64bit=1\n[all]\nkernel=vmlinuz\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(boot, "vmlinuz"), []byte("kernel v1"), 0o644))
	must(t, os.WriteFile(filepath.Join(boot, "cmdline.txt"), []byte("root=PARTUUID=12345678-02 ro\n"), 0o644))
	must(t, os.MkdirAll(b.state, 0o700))
	must(t, os.WriteFile(filepath.Join(b.state, "openlolo.db"), []byte("database before the update"), 0o600))
	b.boot(SlotA)
	return b
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// boot makes the card as a boot of slot s sees it.
func (b *box) boot(s Slot) {
	b.card = &Card{Boot: filepath.Join(b.dir, "boot"), Disk: filepath.Join(b.dir, "disk"),
		RootA: filepath.Join(b.dir, "rootA"), RootB: filepath.Join(b.dir, "rootB"), Running: s,
		Restart: func(arg string) error { b.reboots <- arg; return nil }}
}

// plainBoot is the slot the next boot takes, as the firmware or stage 1
// picks it: the one-shot file once (consumed), else config.txt.
func (b *box) plainBoot() Slot {
	one := filepath.Join(b.dir, "boot", oneShotName)
	if s, err := os.ReadFile(one); err == nil {
		os.Remove(one)
		return Slot(strings.TrimSpace(string(s)))
	}
	cfg, err := os.ReadFile(filepath.Join(b.dir, "boot", "config.txt"))
	must(b.t, err)
	return CommittedSlot(cfg)
}

func (b *box) updater() *Updater {
	b.t.Helper()
	backup := b.backupFn
	if backup == nil {
		backup = func(ctx context.Context, path string) error {
			data, err := os.ReadFile(filepath.Join(b.state, "openlolo.db"))
			if err != nil {
				return err
			}
			return os.WriteFile(path, data, 0o600)
		}
	}
	u, err := New(Config{Slots: b.card, Key: b.pub, Release: b.release, StateDir: b.state, Backup: backup,
		RebootDelay: time.Millisecond, FreeSpace: func(string) (int64, error) { return b.free, nil }})
	must(b.t, err)
	return u
}

// snapshot is every file of the box but the other slot's.
func (b *box) snapshot() map[string]string {
	out := map[string]string{}
	filepath.WalkDir(b.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) == "rootB" {
			return err
		}
		data, _ := os.ReadFile(p)
		out[strings.TrimPrefix(p, b.dir)] = string(data)
		return nil
	})
	return out
}

func (b *box) bundle(m Manifest, root []byte) []byte {
	b.t.Helper()
	var buf bytes.Buffer
	_, err := Write(&buf, b.key, m, []Source{
		bytesSource(RootName, root),
		bytesSource("boot/vmlinuz", []byte("kernel "+m.Version)),
		bytesSource("boot/overlays/dwc2.dtbo", []byte("overlay")),
		bytesSource("boot/cmdline.txt", []byte("console=tty0 root=PARTUUID=deadbeef-02 rootfstype=squashfs ro\n")),
	})
	must(b.t, err)
	return buf.Bytes()
}

func rootImage(version string) []byte {
	return bytes.Repeat([]byte("root "+version+" "), 20000)
}

func TestInstallConfirm(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	u := b.updater()
	v2 := Manifest{Version: "v2", Board: "rpi", Built: 2000}
	if err := u.Install(context.Background(), bytes.NewReader(b.bundle(v2, rootImage("v2"))), Options{}); err != nil {
		t.Fatal(err)
	}
	if arg := <-b.reboots; arg != "" {
		t.Errorf("reboot argument %q, want none (initramfs one-shot)", arg)
	}
	gotRoot, _ := os.ReadFile(filepath.Join(b.dir, "rootB"))
	if !bytes.HasPrefix(gotRoot, rootImage("v2")) {
		t.Error("slot B does not hold the new root image")
	}
	cmd, _ := os.ReadFile(filepath.Join(b.dir, "boot", "b", "cmdline.txt"))
	if string(cmd) != "console=tty0 root=PARTUUID=12345678-03 rootfstype=squashfs ro" {
		t.Errorf("b/cmdline.txt = %q, want root pointed at this card's partition 3", cmd)
	}
	if k, _ := os.ReadFile(filepath.Join(b.dir, "boot", "b", "overlays", "dwc2.dtbo")); string(k) != "overlay" {
		t.Error("slot B's overlay is missing")
	}
	if k, _ := os.ReadFile(filepath.Join(b.dir, "boot", "vmlinuz")); string(k) != "kernel v1" {
		t.Error("slot A's kernel was touched")
	}
	if p := u.Progress(); p.State != "rebooting" || p.Done != p.Total || p.Version != "v2" {
		t.Errorf("progress = %+v", p)
	}

	// the trial boot of B
	if s := b.plainBoot(); s != SlotB {
		t.Fatalf("the next boot takes slot %s, want B once", s)
	}
	b.boot(SlotB)
	boot, err := Recover(b.state, "openlolo.db", b.card, time.Now())
	if err != nil || !boot.Trial {
		t.Fatalf("Recover on the trial boot = %+v, %v; want Trial", boot, err)
	}
	must(t, os.WriteFile(filepath.Join(b.state, "openlolo.db"), []byte("database migrated by v2"), 0o600))
	b.release = Release{Version: "v2", Board: "rpi", Built: 2000}
	u = b.updater()
	if err := u.Install(context.Background(), bytes.NewReader(b.bundle(Manifest{Version: "v3", Board: "rpi", Built: 3000}, rootImage("v3"))), Options{}); CodeOf(err) != CodeBusy {
		t.Errorf("an install during the trial = %v, want %s", err, CodeBusy)
	}
	if err := u.Confirm(context.Background(), []Check{{Name: "ok", Run: func(context.Context) error { return nil }}}); err != nil {
		t.Fatal(err)
	}
	if s := b.plainBoot(); s != SlotB {
		t.Errorf("after the commit a plain boot takes %s, want B", s)
	}
	st, err := u.Status()
	if err != nil || st.Running != SlotB || st.Committed != SlotB || st.Last.Phase != PhaseCommitted || st.Last.Version != "v2" {
		t.Errorf("status = %+v (last %+v), %v", st, st.Last, err)
	}
	if db, _ := os.ReadFile(filepath.Join(b.state, "openlolo.db")); string(db) != "database migrated by v2" {
		t.Errorf("a committed update changed the database: %q", db)
	}
	if _, err := Recover(b.state, "openlolo.db", b.card, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// TestRollback: a trial whose self-check fails records why and restarts;
// the next boot is the old slot, where Recover restores the database.
func TestRollback(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"self-check fails", "trial hangs (the boot scripts restart it)"} {
		t.Run(how, func(t *testing.T) {
			b := newBox(t)
			must(t, b.updater().Install(context.Background(), bytes.NewReader(b.bundle(v2, rootImage("v2"))), Options{}))
			<-b.reboots
			b.plainBoot()
			b.boot(SlotB)
			if boot, err := Recover(b.state, "openlolo.db", b.card, time.Now()); err != nil || !boot.Trial {
				t.Fatalf("Recover = %+v, %v", boot, err)
			}
			// the new version changed the database before it failed
			must(t, os.WriteFile(filepath.Join(b.state, "openlolo.db"), []byte("database migrated by v2"), 0o600))
			must(t, os.WriteFile(filepath.Join(b.state, "openlolo.db-wal"), []byte("v2's wal"), 0o600))
			b.release = Release{Version: "v2", Board: "rpi", Built: 2000}
			if how == "self-check fails" {
				err := b.updater().Confirm(context.Background(), []Check{{Name: "the phone backend starts", Run: func(context.Context) error { return errors.New("no phone") }}})
				if err == nil {
					t.Fatal("Confirm passed with a failing check")
				}
				<-b.reboots
			} else {
				must(t, os.WriteFile(filepath.Join(b.state, "update", trialLogName), []byte("openlolo serve exited 3 times\n"), 0o600))
			}
			if s := b.plainBoot(); s != SlotA {
				t.Fatalf("after the failed trial the box boots %s, want A", s)
			}
			b.boot(SlotA)
			boot, err := Recover(b.state, "openlolo.db", b.card, time.Now())
			if err != nil || !boot.RolledBack {
				t.Fatalf("Recover on the old slot = %+v, %v; want RolledBack", boot, err)
			}
			if db, _ := os.ReadFile(filepath.Join(b.state, "openlolo.db")); string(db) != "database before the update" {
				t.Errorf("database after the rollback = %q", db)
			}
			if _, err := os.Stat(filepath.Join(b.state, "openlolo.db-wal")); err == nil {
				t.Error("the new version's WAL is still there (SQLite would apply it to the restored database)")
			}
			want := map[string]string{"self-check fails": "the phone backend starts: no phone", "trial hangs (the boot scripts restart it)": "serve exited 3 times"}[how]
			if !strings.Contains(boot.Record.Reason, want) || boot.Record.Phase != PhaseRolledBack {
				t.Errorf("record = %+v, want a reason with %q", boot.Record, want)
			}
			// a second start changes nothing
			if boot, err := Recover(b.state, "openlolo.db", b.card, time.Now()); err != nil || boot.RolledBack || boot.Trial {
				t.Errorf("second Recover = %+v, %v", boot, err)
			}
		})
	}
}

// TestRefusals: each bad input is refused with its code, and the running
// slot, its boot files, config.txt and the data are as they were.
func TestRefusals(t *testing.T) {
	t.Parallel()
	_, other := testKey(9)
	tests := []struct {
		name  string
		setup func(b *box) ([]byte, Options)
		code  Code
		words string
	}{
		{"wrong signature", func(b *box) ([]byte, Options) {
			b.key = other
			return b.bundle(v2, rootImage("v2")), Options{}
		}, CodeBadSignature, "signature"},
		{"truncated bundle", func(b *box) ([]byte, Options) {
			full := b.bundle(v2, rootImage("v2"))
			return full[:len(full)/2], Options{}
		}, CodeTruncated, "ends early"},
		{"corrupted root image", func(b *box) ([]byte, Options) {
			full := b.bundle(v2, rootImage("v2"))
			full[len(full)/2] ^= 1
			return full, Options{}
		}, CodeCorrupt, "does not match"},
		{"another board's bundle", func(b *box) ([]byte, Options) {
			return b.bundle(Manifest{Version: "v2", Board: "rpi5", Built: 2000}, rootImage("v2")), Options{}
		}, CodeWrongBoard, `for the board "rpi5"`},
		{"older version", func(b *box) ([]byte, Options) {
			return b.bundle(Manifest{Version: "v0", Board: "rpi", Built: 500}, rootImage("v0")), Options{}
		}, CodeNotNewer, "older than the running v1"},
		{"the same version", func(b *box) ([]byte, Options) {
			return b.bundle(Manifest{Version: "v1", Board: "rpi", Built: 1000}, rootImage("v1")), Options{}
		}, CodeNotNewer, "the version the box runs"},
		{"root image larger than the slot", func(b *box) ([]byte, Options) {
			return b.bundle(v2, bytes.Repeat([]byte("x"), slotSize+1)), Options{}
		}, CodeTooLarge, "holds 1048576"},
		{"data partition full before the write", func(b *box) ([]byte, Options) {
			b.free = 100 << 10
			return b.bundle(v2, rootImage("v2")), Options{}
		}, CodeNoSpace, "100 KiB free"},
		{"data partition fills during the backup", func(b *box) ([]byte, Options) {
			b.backupFn = func(ctx context.Context, path string) error {
				os.WriteFile(path, []byte("half"), 0o600)
				return fmt.Errorf("store: backup: %w", syscall.ENOSPC)
			}
			return b.bundle(v2, rootImage("v2")), Options{}
		}, CodeNoSpace, "filled up"},
		{"a trial is under way", func(b *box) ([]byte, Options) {
			must(b.t, os.WriteFile(filepath.Join(b.dir, "boot", "config.txt"), configFor([]byte("arm_64bit=1\n"), SlotB), 0o644))
			return b.bundle(v2, rootImage("v2")), Options{}
		}, CodeBusy, "trying a new version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBox(t)
			data, opts := tc.setup(b)
			before := b.snapshot()
			u := b.updater()
			err := u.Install(context.Background(), bytes.NewReader(data), opts)
			if CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.words) {
				t.Fatalf("Install = %v, want %s with %q", err, tc.code, tc.words)
			}
			if p := u.Progress(); p.State != "failed" || p.Err == nil || p.Err.Code != tc.code {
				t.Errorf("progress = %+v", p)
			}
			after := b.snapshot()
			for k, v := range before {
				if after[k] != v {
					t.Errorf("%s changed", k)
				}
			}
			for k := range after {
				if _, ok := before[k]; !ok && !strings.Contains(k, "/update/") {
					t.Errorf("%s appeared", k)
				}
			}
			if _, err := os.Stat(filepath.Join(b.state, "update", recordName)); err == nil {
				t.Error("a refused update left an update record")
			}
			select {
			case <-b.reboots:
				t.Error("a refused update restarted the box")
			case <-time.After(20 * time.Millisecond):
			}
		})
	}
}

// TestAllowOlder: the owner's explicit choice installs an older version.
func TestAllowOlder(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	err := b.updater().Install(context.Background(), bytes.NewReader(b.bundle(Manifest{Version: "v0", Board: "rpi", Built: 500}, rootImage("v0"))), Options{AllowOlder: true})
	if err != nil {
		t.Fatal(err)
	}
	<-b.reboots
}

// TestPowerCutWhileWriting: the power goes while the other slot is being
// written; the next boot is the running slot, with nothing to recover.
func TestPowerCutWhileWriting(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	before := b.snapshot()
	full := b.bundle(v2, rootImage("v2"))
	ctx, cut := context.WithCancel(context.Background())
	r := &cutReader{r: bytes.NewReader(full), after: int64(len(full) / 2), cut: cut}
	err := b.updater().Install(ctx, r, Options{})
	if err == nil {
		t.Fatal("the install finished despite the cut")
	}
	if s := b.plainBoot(); s != SlotA {
		t.Fatalf("after the cut the box boots %s", s)
	}
	b.boot(SlotA)
	boot, err := Recover(b.state, "openlolo.db", b.card, time.Now())
	if err != nil || boot.Trial || boot.RolledBack || boot.Record != nil {
		t.Errorf("Recover = %+v, %v; want nothing to do", boot, err)
	}
	after := b.snapshot()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed", k)
		}
	}
}

// cutReader stops the machine (cancels) once after bytes were read.
type cutReader struct {
	r     io.Reader
	n     int64
	after int64
	cut   func()
}

func (c *cutReader) Read(p []byte) (int, error) {
	if c.n >= c.after {
		c.cut()
		return 0, context.Canceled
	}
	if int64(len(p)) > c.after-c.n {
		p = p[:c.after-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestCommitConfig(t *testing.T) {
	t.Parallel()
	cfg := []byte("arm_64bit=1\n[pi4]\nstart_file=start4.elf\n[all]\nkernel=vmlinuz\n")
	b := configFor(cfg, SlotB)
	if CommittedSlot(b) != SlotB || !bytes.HasPrefix(b, cfg) || !bytes.HasSuffix(b, []byte("[all]\nos_prefix=b/\n")) {
		t.Errorf("configFor B = %q", b)
	}
	if a := configFor(b, SlotA); !bytes.Equal(a, cfg) || CommittedSlot(a) != SlotA {
		t.Errorf("configFor A after B = %q, want the original", a)
	}
	if bb := configFor(configFor(b, SlotB), SlotB); !bytes.Equal(bb, b) {
		t.Errorf("committing B twice = %q", bb)
	}
}

func TestFetch(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	good := b.bundle(v2, rootImage("v2"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v2.update" {
			http.NotFound(w, r)
			return
		}
		w.Write(good)
	}))
	defer srv.Close()
	u := b.updater()
	for _, tc := range []struct{ url, words string }{
		{"ftp://example.com/x.update", "not an http:// or https:// address"},
		{srv.URL + "/missing.update", "404 Not Found"},
		{"http://127.0.0.1:1/x.update", "could not fetch"},
	} {
		if err := u.Fetch(context.Background(), tc.url, Options{}); CodeOf(err) != CodeFetchFailed || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("Fetch(%s) = %v, want %s with %q", tc.url, err, CodeFetchFailed, tc.words)
		}
	}
	if err := u.Fetch(context.Background(), srv.URL+"/v2.update", Options{}); err != nil {
		t.Fatal(err)
	}
	<-b.reboots
	if got, _ := os.ReadFile(filepath.Join(b.dir, "rootB")); !bytes.HasPrefix(got, rootImage("v2")) {
		t.Error("slot B does not hold the fetched root image")
	}
}
