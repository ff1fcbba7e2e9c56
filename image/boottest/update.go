package main

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/openlolo/openlolo/appliance/update"
	"github.com/openlolo/openlolo/image/card"
)

// updateTest is the A/B update scenario (make test-update): v1 is the
// card, v2 a good bundle, v3 a bundle whose new version fails its
// self-check (its serve cannot start its phone backend). The owner's
// interface is the openlolo update command (owner passphrase over the
// pinned HTTPS, the Settings page's upload form).
type updateTest struct {
	*test
	v2, v3   string // bundles
	cli      string // the host's openlolo binary
	passFile string
	versions [3]string // v1, v2, v3 as the bundles and the card name them
}

// bootFilesNow reads what the Pi firmware would load now: config.txt's
// committed slot (os_prefix=b/ for B) names the folder of vmlinuz,
// initrd.img and cmdline.txt. QEMU runs no firmware, so the test does.
func (t *test) bootFilesNow(ctx context.Context) error {
	c, err := card.Open(t.disk)
	if err != nil {
		return err
	}
	cfg, err := c.BootFile(ctx, "config.txt")
	if err != nil {
		return err
	}
	prefix := ""
	if update.CommittedSlot(cfg) == update.SlotB {
		prefix = "b/"
	}
	dir := filepath.Join(t.dir, "boot-"+strings.TrimSuffix(prefix, "/")+"a")
	os.MkdirAll(dir, 0o755)
	b := &bootFiles{dir: dir}
	for _, name := range []string{"vmlinuz", "initrd.img", "cmdline.txt"} {
		data, err := c.BootFile(ctx, prefix+name)
		if err != nil {
			return fmt.Errorf("boot files of the committed slot: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
		if name == "cmdline.txt" {
			b.Cmdline = strings.TrimSpace(string(data))
		}
	}
	b.Kernel, b.Initrd = filepath.Join(dir, "vmlinuz"), filepath.Join(dir, "initrd.img")
	t.files = b
	return nil
}

func (u *updateTest) run(ctx context.Context) {
	c, err := card.Open(u.img)
	if !u.r.check("card: the image has an MBR with boot, root A, root B and data", cardLayout(c, err)) {
		return
	}
	for i, p := range []string{u.img, u.v2, u.v3} {
		u.versions[i] = versionOf(p)
	}
	u.disk = filepath.Join(u.dir, "sd.img")
	if !u.r.check("card: copied to a 1 GiB virtual SD card", sparseCopy(ctx, u.img, u.disk, diskSize)) {
		return
	}
	u.passphrase = "correct horse battery staple"
	u.passFile = filepath.Join(u.dir, "passphrase")
	os.WriteFile(u.passFile, []byte(u.passphrase+"\n"), 0o600)

	// v1: claim, pair a script, leave activity
	m, cl, ok := u.upNow(ctx, "v1")
	if !ok {
		return
	}
	code := strings.TrimSpace(m.con.value("Setup code:"))
	if !u.r.check("v1: claim with the setup code", cl.claim(ctx, code, u.passphrase)) {
		m.pull()
		return
	}
	if !u.r.check("v1: a script is paired (device grant approved by the owner)", u.grant(ctx, cl)) {
		m.pull()
		return
	}
	sc := cl.script()
	u.r.check("v1: the script's openlolo_key runs (activity)", key(ctx, sc, u.tok.AccessToken))
	u.r.check("v1: runs "+u.versions[0], runsVersion(ctx, cl, u.versions[0]))

	// v2 through the owner's interface
	out, err := u.cliUpdate(ctx, m, u.v2)
	if !u.r.check("v1 → v2: openlolo update (owner passphrase, pinned HTTPS) uploads the bundle and the box restarts", errors.Join(err, u.rebooted(ctx, m, out))) {
		return
	}
	m, cl, ok = u.upNow(ctx, "v2 (trial boot)")
	if !ok {
		return
	}
	u.r.check("v2: stage 1 took the one-shot trial of slot B", consoleHas(m.con, "one-shot trial boot of slot B"))
	u.r.check("v2: passes its self-check and commits slot B", u.committed(ctx, m))
	u.r.check("v2: runs "+u.versions[1]+" from slot B", errors.Join(runsVersion(ctx, cl, u.versions[1]), u.settingsSay(ctx, cl, "slot B")))
	u.r.check("v2: the script's grant still works (refresh, then openlolo_status)", u.scriptWorks(ctx, cl))

	// refusals on v2: nothing changes, no restart
	corrupt, err := corrupted(u.v3, filepath.Join(u.dir, "corrupt.update"))
	if err == nil {
		out, err = u.cliUpdate(ctx, m, corrupt)
		err = refusedWith(out, err, "UPDATE_CORRUPT")
	}
	u.r.check("v2: a corrupted bundle is refused (UPDATE_CORRUPT, a sentence saying so)", err)
	resigned, err := resigned(u.v3, filepath.Join(u.dir, "resigned.update"))
	if err == nil {
		out, err = u.cliUpdate(ctx, m, resigned)
		err = refusedWith(out, err, "UPDATE_BAD_SIGNATURE")
	}
	u.r.check("v2: a bundle signed with another key is refused (UPDATE_BAD_SIGNATURE)", err)
	u.r.check("v2: still runs "+u.versions[1]+" after the refusals", runsVersion(ctx, cl, u.versions[1]))

	// v3 fails its self-check: back to v2 with the grant and the activity
	out, err = u.cliUpdate(ctx, m, u.v3)
	if !u.r.check("v2 → v3: the bundle is written and the box restarts into it", errors.Join(err, u.rebooted(ctx, m, out))) {
		return
	}
	if err := u.bootFilesNow(ctx); err != nil {
		u.r.check("v3: boot files", err)
		return
	}
	m3, err := boot(ctx, machineSpec{disk: u.disk, files: u.files, echo: u.echo})
	if err == nil {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		_, err = m3.con.wait(wctx, "trial boot of slot A failed")
		if err == nil {
			err = m3.wait(wctx)
		}
		cancel()
		if err != nil {
			m3.pull()
			err = fmt.Errorf("%w; console ends:\n%s", err, tail(m3.con.text(), 25))
		}
	}
	u.r.check("v3: the trial boot of slot A fails its check (serve cannot start its phone backend) and restarts", err)
	m, cl, ok = u.upNow(ctx, "after v3")
	if !ok {
		return
	}
	u.r.check("after v3: the box runs "+u.versions[1]+" again, from slot B", errors.Join(runsVersion(ctx, cl, u.versions[1]), u.settingsSay(ctx, cl, "slot B")))
	u.r.check("after v3: Settings says the update was rolled back and why", u.settingsSay(ctx, cl, "rolled-back", "serve stopped"))
	u.r.check("after v3: the script's grant still works", u.scriptWorks(ctx, cl))
	u.r.check("after v3: the activity from before the update is there", u.activity(ctx, cl))

	// the power goes while the box writes a bundle
	err = u.powerCut(ctx, m, cl)
	u.r.check("power cut while the box writes the other slot", err)
	m, cl, ok = u.upNow(ctx, "after the power cut")
	if !ok {
		return
	}
	u.r.check("after the power cut: the box runs "+u.versions[1]+" from slot B", errors.Join(runsVersion(ctx, cl, u.versions[1]), u.settingsSay(ctx, cl, "slot B")))
	u.r.check("after the power cut: the script's grant still works", u.scriptWorks(ctx, cl))
	u.shell(m).run(ctx, detached("poweroff"))
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	m.wait(wctx)
	u.r.check("card: the database passes PRAGMA integrity_check", u.integrity(ctx))
}

// upNow boots the committed slot and waits for HTTPS (t.up), as an
// owner session when the box is claimed.
func (u *updateTest) upNow(ctx context.Context, label string) (*machine, *client, bool) {
	if err := u.bootFilesNow(ctx); err != nil {
		u.r.check(label+": boot files of the committed slot", err)
		return nil, nil, false
	}
	m, cl, ok := u.up(ctx, label)
	if ok && u.tok != nil {
		if err := cl.login(ctx, u.passphrase); err != nil {
			u.r.check(label+": the owner logs in", err)
			m.pull()
			return nil, nil, false
		}
	}
	return m, cl, ok
}

// cliUpdate runs openlolo update against the box's forwarded port.
func (u *updateTest) cliUpdate(ctx context.Context, m *machine, bundle string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, u.cli, "update", "https://"+u.name, bundle, "--fingerprint", u.pin,
		"--connect", m.httpsAddr, "--passphrase-file", u.passFile, "--wait", "0")
	cmd.Env = append(os.Environ(), "OPENLOLO_STORE="+filepath.Join(u.dir, "boxes.json"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("openlolo update: %w: %s", err, out)
	}
	return string(out), nil
}

// refusedWith checks that openlolo update failed with code in its output.
func refusedWith(out string, err error, code string) error {
	if err == nil {
		return fmt.Errorf("openlolo update succeeded: %s", out)
	}
	if !strings.Contains(out, code) || !strings.Contains(out, "refused") {
		return fmt.Errorf("openlolo update failed without %s: %s", code, out)
	}
	return nil
}

// rebooted waits for the machine to restart after an update.
func (u *updateTest) rebooted(ctx context.Context, m *machine, out string) error {
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := m.wait(wctx); err != nil {
		return fmt.Errorf("%w (openlolo update said: %s)", err, out)
	}
	return nil
}

// committed waits for serve's commit line.
func (u *updateTest) committed(ctx context.Context, m *machine) error {
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if _, err := m.con.wait(wctx, "passed its self-check and is committed"); err != nil {
		return fmt.Errorf("%w; console ends:\n%s", err, tail(m.con.text(), 20))
	}
	// read config.txt as the box sees it (the card's FAT is mounted there)
	cfg, st, err := u.shell(m).run(ctx, "cat /boot/config.txt")
	if err == nil && (st != 0 || update.CommittedSlot([]byte(cfg)) != update.SlotB) {
		err = fmt.Errorf("config.txt does not commit slot B:\n%s", cfg)
	}
	return err
}

// runsVersion checks /healthz's version.
func runsVersion(ctx context.Context, cl *client, want string) error {
	st, body, _, err := cl.get(ctx, "/healthz")
	if err != nil {
		return err
	}
	var h struct{ Version string }
	json.Unmarshal(body, &h)
	if st != 200 || h.Version != want {
		return fmt.Errorf("/healthz: status %d, version %q, want %q", st, h.Version, want)
	}
	return nil
}

func (u *updateTest) settingsSay(ctx context.Context, cl *client, words ...string) error {
	st, page, _, err := cl.get(ctx, "/settings")
	if err != nil {
		return err
	}
	text := pageText(page)
	if i := strings.Index(string(page), `id="update"`); i >= 0 {
		text = pageText(page[i:])
	}
	for _, w := range words {
		if st != 200 || !strings.Contains(string(page), w) {
			return fmt.Errorf("the settings page (status %d) lacks %q: %s", st, w, text)
		}
	}
	return nil
}

func (u *updateTest) scriptWorks(ctx context.Context, cl *client) error {
	sc := cl.script()
	tok, err := sc.refresh(ctx, u.clientID, u.tok.RefreshToken)
	if err != nil {
		return err
	}
	u.tok = tok
	return status(ctx, sc, tok.AccessToken)
}

func (u *updateTest) activity(ctx context.Context, cl *client) error {
	st, page, _, err := cl.get(ctx, "/activity")
	if err != nil {
		return err
	}
	if st != 200 || !strings.Contains(string(page), "openlolo_key") {
		return fmt.Errorf("/activity (status %d) does not list v1's openlolo_key: %s", st, pageText(page))
	}
	return nil
}

func key(ctx context.Context, cl *client, access string) error {
	res, err := cl.callTool(ctx, access, "openlolo_key", map[string]any{"key": "enter"})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("openlolo_key: %v", res.StructuredContent)
	}
	return nil
}

// powerCut uploads v3 again and cuts the power once the box has written
// part of the other slot.
func (u *updateTest) powerCut(ctx context.Context, m *machine, cl *client) error {
	done := make(chan error, 1)
	go func() { _, err := u.cliUpdate(ctx, m, u.v3); done <- err }()
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for {
		st, body, _, err := cl.get(wctx, "/settings/update/progress")
		var p struct {
			State       string
			Done, Total int64
		}
		if err == nil && st == 200 && json.Unmarshal(body, &p) == nil && p.State == "writing" && p.Done > p.Total/3 && p.Done < p.Total {
			m.pull()
			u.r.figure("power cut", "after %d of %d bytes of the root image", p.Done, p.Total)
			<-done
			return nil
		}
		select {
		case err := <-done:
			m.pull()
			return fmt.Errorf("the upload ended before the cut (%v); last progress %s", err, body)
		case <-wctx.Done():
			m.pull()
			return wctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// versionOf is the version in an image's or bundle's file name.
func versionOf(p string) string {
	b := filepath.Base(p)
	b = strings.TrimPrefix(b, "openlolo-")
	for _, s := range []string{"-rpi.img", "-rpi.update"} {
		b = strings.TrimSuffix(b, s)
	}
	return b
}

// corrupted copies a bundle with one byte of its root image changed.
func corrupted(src, dst string) (string, error) {
	return dst, rewriteBundle(src, dst, func(name string, data []byte) []byte {
		if name == update.RootName {
			data[len(data)/2] ^= 0x01
		}
		return data
	})
}

// resigned copies a bundle with its manifest signed by a key the box does
// not know.
func resigned(src, dst string) (string, error) {
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		return "", err
	}
	var manifest []byte
	return dst, rewriteBundle(src, dst, func(name string, data []byte) []byte {
		switch name {
		case update.ManifestName:
			manifest = bytes.Clone(data)
		case update.SignatureName:
			return update.Sign(key, manifest)
		}
		return data
	})
}

func rewriteBundle(src, dst string, edit func(string, []byte) []byte) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer out.Close()
	tr, tw := tar.NewReader(in), tar.NewWriter(out)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		data = edit(h.Name, data)
		h.Size = int64(len(data))
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	return tw.Close()
}
