package update

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Config is what an [Updater] works with. Slots, Key, Release, StateDir
// and Backup are required; the zero value of the others is documented.
type Config struct {
	// Slots is the card.
	Slots Slots
	// Key is the public key bundles must be signed with (the image's
	// /etc/openlolo/update.pub).
	Key ed25519.PublicKey
	// Release is the running root's /etc/openlolo-release.
	Release Release
	// StateDir is the box's state directory (on the data partition): the
	// update record and the database backup go to its update folder.
	StateDir string
	// DBName is the database's file name in StateDir, for the space check;
	// "" means openlolo.db.
	DBName string
	// Backup writes a consistent copy of the database to path (which does
	// not exist). An error wrapping syscall.ENOSPC means the data
	// partition is full.
	Backup func(ctx context.Context, path string) error
	// BeforeReboot runs just before the box restarts into the new slot
	// (the box closes its database); nil does nothing.
	BeforeReboot func()
	// RebootDelay is how long after a successful install the box restarts,
	// so the answer reaches the owner; 0 means 2 seconds.
	RebootDelay time.Duration
	// FreeSpace returns the bytes free for the state directory; nil means
	// statfs.
	FreeSpace func(dir string) (int64, error)
	// HTTPClient fetches bundles by URL; nil means a client with a
	// 10-minute timeout.
	HTTPClient *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives the update's steps; nil discards them.
	Logger *slog.Logger
}

// Updater installs bundles, one at a time.
type Updater struct {
	cfg Config
	log *slog.Logger

	running sync.Mutex // held while an install runs

	mu       sync.Mutex
	progress Progress
}

// Progress is the state of the install that runs now or ran last.
type Progress struct {
	// State is idle, fetching, checking, writing, verifying, backing-up,
	// rebooting or failed.
	State   string
	Version string // the bundle's, once its manifest is read
	Done    int64  // root image bytes written (writing) or read back (verifying)
	Total   int64  // the root image's size
	Err     *Error // when State is failed
	Started time.Time
}

// Percent is Done of Total in percent.
func (p Progress) Percent() int {
	if p.Total <= 0 {
		return 0
	}
	return int(p.Done * 100 / p.Total)
}

// Active reports whether an install is running.
func (p Progress) Active() bool {
	return p.State != "" && p.State != "idle" && p.State != "failed" && p.State != "rebooting"
}

// Options are the owner's choices for one install.
type Options struct {
	// AllowOlder installs a bundle that is not newer than the running
	// version (a downgrade or a reinstall).
	AllowOlder bool
}

// New checks cfg and returns an updater.
func New(cfg Config) (*Updater, error) {
	switch {
	case cfg.Slots == nil:
		return nil, errors.New("update: Config.Slots is required")
	case len(cfg.Key) != ed25519.PublicKeySize:
		return nil, errors.New("update: Config.Key is not an ed25519 public key")
	case cfg.StateDir == "" || cfg.Backup == nil:
		return nil, errors.New("update: Config.StateDir and Config.Backup are required")
	case cfg.Release.Board == "":
		return nil, errors.New("update: Config.Release has no board")
	}
	if cfg.DBName == "" {
		cfg.DBName = "openlolo.db"
	}
	if cfg.RebootDelay == 0 {
		cfg.RebootDelay = 2 * time.Second
	}
	if cfg.FreeSpace == nil {
		cfg.FreeSpace = freeSpace
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Minute}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	u := &Updater{cfg: cfg, log: cfg.Logger, progress: Progress{State: "idle"}}
	if u.log == nil {
		u.log = slog.New(slog.DiscardHandler)
	}
	return u, nil
}

// Progress returns the install's progress.
func (u *Updater) Progress() Progress {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.progress
}

func (u *Updater) set(f func(*Progress)) {
	u.mu.Lock()
	f(&u.progress)
	u.mu.Unlock()
}

// Status is the box's software as the Settings page shows it.
type Status struct {
	Release            Release
	Running, Committed Slot
	Last               *Record // the last update, if any
}

// Status reads the slots and the last update's record.
func (u *Updater) Status() (Status, error) {
	s := Status{Release: u.cfg.Release}
	var err error
	s.Running, s.Committed, err = u.cfg.Slots.Booted()
	if err != nil {
		return s, err
	}
	if rec, ok, err := readRecord(u.cfg.StateDir); err != nil {
		return s, err
	} else if ok {
		s.Last = &rec
	}
	return s, nil
}

// Fetch installs the bundle at rawURL (http or https). The signature, not
// the connection, is what makes a bundle trustworthy.
func (u *Updater) Fetch(ctx context.Context, rawURL string, opts Options) error {
	pu, err := url.Parse(rawURL)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return u.failed(fail(CodeFetchFailed, err, "%q is not an http:// or https:// address of a bundle.", rawURL))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pu.String(), nil)
	if err != nil {
		return u.failed(fail(CodeFetchFailed, err, "The box could not ask for %s.", pu.Redacted()))
	}
	if !u.running.TryLock() {
		return busy()
	}
	u.set(func(p *Progress) { *p = Progress{State: "fetching", Started: u.cfg.Now()} })
	res, err := u.cfg.HTTPClient.Do(req)
	if err != nil {
		u.running.Unlock()
		return u.failed(fail(CodeFetchFailed, err, "The box could not fetch %s. Check the address and that the box can reach it.", pu.Redacted()))
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		u.running.Unlock()
		return u.failed(fail(CodeFetchFailed, nil, "Fetching %s answered %s, not the bundle.", pu.Redacted(), res.Status))
	}
	return u.install(ctx, res.Body, opts)
}

// Install installs the bundle read from r: it checks the signature, the
// board and the version, writes the slot the box does not run, reads it
// back against the manifest, backs the database up, arms the new slot for
// one boot and, RebootDelay later, restarts the box. Any refusal or
// failure leaves the running slot, its boot files and the data as they
// were, and is an [*Error].
func (u *Updater) Install(ctx context.Context, r io.Reader, opts Options) error {
	if !u.running.TryLock() {
		return busy()
	}
	u.set(func(p *Progress) { *p = Progress{State: "checking", Started: u.cfg.Now()} })
	return u.install(ctx, r, opts)
}

func busy() error {
	return fail(CodeBusy, nil, "Another update is running now. Wait for it to finish (its progress is on the Settings page).")
}

// install runs with u.running held and releases it.
func (u *Updater) install(ctx context.Context, r io.Reader, opts Options) error {
	err := u.installLocked(ctx, r, opts)
	if err != nil {
		u.running.Unlock()
		return u.failed(err)
	}
	u.set(func(p *Progress) { p.State = "rebooting" })
	go func() {
		time.Sleep(u.cfg.RebootDelay)
		if u.cfg.BeforeReboot != nil {
			u.cfg.BeforeReboot()
		}
		if err := u.cfg.Slots.Reboot(context.Background()); err != nil {
			u.log.Error("update: restart into the new slot", "err", err)
			u.set(func(p *Progress) {
				p.State = "failed"
				p.Err = fail(CodeWriteFailed, err, "The new version is installed but the box could not restart; restart it by hand to try it.")
			})
		}
		u.running.Unlock()
	}()
	return nil
}

// failed records err as the progress and returns it as an *Error.
func (u *Updater) failed(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		e = fail(CodeWriteFailed, err, "The update failed; the box still runs the version it ran.")
	}
	u.log.Warn("update: refused", "code", e.Code, "err", e)
	u.set(func(p *Progress) { p.State, p.Err = "failed", e })
	return e
}

func (u *Updater) installLocked(ctx context.Context, r io.Reader, opts Options) error {
	running, committed, err := u.cfg.Slots.Booted()
	if err != nil {
		return fail(CodeUnsupported, err, "The box cannot tell which slot it runs from, so it does not update itself.")
	}
	if running != committed {
		return fail(CodeBusy, nil, "The box is trying a new version (slot %s) that has not confirmed itself yet; wait until it has, then update.", running)
	}
	u.set(func(p *Progress) { p.State = "checking" })
	br, err := Open(r, u.cfg.Key)
	if err != nil {
		return err
	}
	m := br.Manifest()
	u.set(func(p *Progress) { p.Version, p.Total = m.Version, m.Root().Size })
	if err := u.checkManifest(m, opts); err != nil {
		return err
	}
	target := running.Other()
	size, err := u.cfg.Slots.RootSize(target)
	if err != nil {
		return fail(CodeUnsupported, err, "The box cannot open its other root slot (%s).", target)
	}
	if m.Root().Size > size {
		return fail(CodeTooLarge, nil, "The bundle's root image is %d bytes; the box's root slot holds %d. This card's layout cannot take this version.", m.Root().Size, size)
	}
	if err := u.checkSpace(); err != nil {
		return err
	}
	u.log.Info("update: installing", "version", m.Version, "built", m.BuiltTime(), "from", u.cfg.Release.Version, "slot", target)

	// the root image, streamed into the other slot, then read back
	f, root, err := br.Next()
	if err != nil {
		return err
	}
	u.set(func(p *Progress) { p.State = "writing" })
	pr := &progressReader{r: root, add: func(n int64) { u.set(func(p *Progress) { p.Done += n }) }}
	if _, err := u.cfg.Slots.WriteRoot(ctx, target, pr); err != nil {
		if CodeOf(err) != "" {
			return err
		}
		return fail(CodeWriteFailed, err, "Writing the new version to slot %s failed; the box still runs the version it ran.", target)
	}
	u.set(func(p *Progress) { p.State, p.Done = "verifying", 0 })
	if err := u.readBack(target, f); err != nil {
		return err
	}
	// the boot files: read whole and checked before one is written
	var boot []BootFile
	for {
		f, fr, err := br.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		data, err := io.ReadAll(fr)
		if err != nil {
			return err
		}
		name := f.Name[len(bootPrefix):]
		if name == "cmdline.txt" {
			if data, err = u.cfg.Slots.Cmdline(target, data); err != nil {
				return fail(CodeNotBundle, err, "The bundle's cmdline.txt cannot be pointed at slot %s.", target)
			}
		}
		boot = append(boot, BootFile{Name: name, Data: data})
	}
	if !hasBootFile(boot, "cmdline.txt") {
		return fail(CodeNotBundle, nil, "The bundle has no boot/cmdline.txt, so the new slot could not boot. Nothing was switched.")
	}
	u.set(func(p *Progress) { p.State = "backing-up" })
	if err := u.backup(ctx); err != nil {
		return err
	}
	if err := u.cfg.Slots.WriteBoot(target, boot); err != nil {
		return fail(CodeWriteFailed, err, "Writing the new version's boot files failed; the box still boots the version it runs.")
	}
	rec := Record{Phase: PhaseTrying, From: running, To: target, FromVersion: u.cfg.Release.Version, Version: m.Version, Started: u.cfg.Now()}
	if err := writeRecord(u.cfg.StateDir, rec); err != nil {
		return fail(CodeWriteFailed, err, "The box could not record the update on its data partition; nothing was switched.")
	}
	os.Remove(filepath.Join(dir(u.cfg.StateDir), trialLogName))
	if err := u.cfg.Slots.TryBoot(target); err != nil {
		return fail(CodeWriteFailed, err, "The box could not arm the new slot for its first boot; nothing was switched.")
	}
	u.log.Info("update: the new version boots next, once", "version", m.Version, "slot", target)
	return nil
}

func hasBootFile(files []BootFile, name string) bool {
	for _, f := range files {
		if f.Name == name {
			return true
		}
	}
	return false
}

func (u *Updater) checkManifest(m Manifest, opts Options) error {
	rel := u.cfg.Release
	if m.Board != rel.Board {
		return fail(CodeWrongBoard, nil, "The bundle is for the board %q; this box runs the %q image. Get the bundle made for %q.", m.Board, rel.Board, rel.Board)
	}
	if m.Built > rel.Built || opts.AllowOlder {
		return nil
	}
	if m.Built == rel.Built && m.Version == rel.Version {
		return fail(CodeNotNewer, nil, "The bundle is version %s, the version the box runs. To install it again, choose to allow an older or the same version.", m.Version)
	}
	return fail(CodeNotNewer, nil, "The bundle is version %s, built %s, older than the running %s (built %s). To go back to it, choose to allow an older version.",
		m.Version, m.BuiltTime().Format(time.DateOnly), rel.Version, time.Unix(rel.Built, 0).UTC().Format(time.DateOnly))
}

// checkSpace refuses an update when the backup would not fit: the
// database with its WAL, and 4 MiB to spare.
func (u *Updater) checkSpace() error {
	var need int64 = 4 << 20
	for _, ext := range []string{"", "-wal"} {
		if st, err := os.Stat(filepath.Join(u.cfg.StateDir, u.cfg.DBName+ext)); err == nil {
			need += st.Size()
		}
	}
	free, err := u.cfg.FreeSpace(u.cfg.StateDir)
	if err != nil {
		return fail(CodeNoSpace, err, "The box cannot tell how much room its data partition has.")
	}
	if free < need {
		return fail(CodeNoSpace, nil, "The data partition has %d KiB free; backing the database up before the update needs %d KiB. Free some room (the Activity journal is trimmed over time) and try again.", free>>10, need>>10)
	}
	return nil
}

func (u *Updater) readBack(slot Slot, f File) error {
	rc, err := u.cfg.Slots.ReadRoot(slot)
	if err != nil {
		return fail(CodeReadBack, err, "The box could not read slot %s back after writing it.", slot)
	}
	defer rc.Close()
	h := sha256.New()
	pr := &progressReader{r: io.LimitReader(rc, f.Size), add: func(n int64) { u.set(func(p *Progress) { p.Done += n }) }}
	n, err := io.Copy(h, pr)
	if err != nil || n != f.Size {
		return fail(CodeReadBack, err, "Reading slot %s back gave %d of %d bytes: the card may be failing.", slot, n, f.Size)
	}
	want, _ := hex.DecodeString(f.SHA256)
	if !bytes.Equal(h.Sum(nil), want) {
		return fail(CodeReadBack, nil, "Slot %s read back differs from the bundle's root image: the card may be failing. The box still runs the version it ran.", slot)
	}
	return nil
}

// backup writes the database backup (update/backup.db) through a new file.
func (u *Updater) backup(ctx context.Context) error {
	d := dir(u.cfg.StateDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return noSpace(err)
	}
	tmp := filepath.Join(d, backupName+".new")
	os.Remove(tmp)
	if err := u.cfg.Backup(ctx, tmp); err != nil {
		os.Remove(tmp)
		return noSpace(err)
	}
	if err := os.Rename(tmp, filepath.Join(d, backupName)); err != nil {
		return noSpace(err)
	}
	return nil
}

func noSpace(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fail(CodeNoSpace, err, "The data partition filled up while the box backed its database up; nothing was switched. Free some room and try again.")
	}
	return fail(CodeWriteFailed, err, "The box could not back its database up before the update; nothing was switched.")
}

// Check is one part of the self-check on a trial boot.
type Check struct {
	Name string // "HTTPS answers"
	Run  func(ctx context.Context) error
}

// Confirm runs the self-check of a trial boot (see [Recover]) and commits
// the running slot when every check passes. When one fails it records why
// and restarts the box, which then boots the old slot, where Recover
// restores the database. It returns the first failure.
func (u *Updater) Confirm(ctx context.Context, checks []Check) error {
	rec, ok, err := readRecord(u.cfg.StateDir)
	if err != nil {
		return err
	}
	if !ok || rec.Phase != PhaseTrying {
		return errors.New("update: confirm: no trial is recorded")
	}
	for _, c := range checks {
		if err := c.Run(ctx); err != nil {
			rec.Reason = fmt.Sprintf("Version %s failed its self-check on its first boot (%s: %v), so the box went back to %s with the database as it was before the update.", rec.Version, c.Name, err, rec.FromVersion)
			u.log.Error("update: self-check failed; restarting into the previous slot", "check", c.Name, "err", err)
			if werr := writeRecord(u.cfg.StateDir, rec); werr != nil {
				u.log.Error("update: record the failed check", "err", werr)
			}
			if u.cfg.BeforeReboot != nil {
				u.cfg.BeforeReboot()
			}
			if rerr := u.cfg.Slots.Reboot(ctx); rerr != nil {
				u.log.Error("update: restart after the failed check", "err", rerr)
			}
			return fmt.Errorf("update: self-check %s: %w", c.Name, err)
		}
		u.log.Info("update: self-check passed", "check", c.Name)
	}
	running, _, err := u.cfg.Slots.Booted()
	if err != nil {
		return err
	}
	if err := u.cfg.Slots.Commit(running); err != nil {
		return err
	}
	rec.Phase, rec.Finished = PhaseCommitted, u.cfg.Now()
	u.log.Info("update: committed", "version", rec.Version, "slot", running)
	return writeRecord(u.cfg.StateDir, rec)
}

type progressReader struct {
	r   io.Reader
	add func(int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.add(int64(n))
	}
	return n, err
}

func freeSpace(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
