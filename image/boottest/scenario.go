package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/openlolo/openlolo/image/card"
	boxtls "github.com/openlolo/openlolo/tls"
)

// diskSize is the size of the virtual SD card: bigger than the image, so
// the first boot grows the data partition; a power of two for -M raspi3b.
const diskSize = 1 << 30

// test is one run of the scenario.
type test struct {
	img, dir string
	r        *results
	echo     io.Writer

	files *bootFiles
	disk  string

	// what the box told and gave
	name, pin, passphrase string
	clientID              string
	tok                   *tokens
	claimed, granted      bool

	// lastRotated: after the power cut the box no longer knew the last
	// access token the client had been given; the card's database then
	// tells whether the refresh in flight had committed (its answer lost
	// with the power) or an acknowledged pair was lost.
	lastRotated bool
	dbCopy      string // the database taken off the card by integrity
}

func (t *test) run(ctx context.Context, raspi bool) {
	c, err := card.Open(t.img)
	if !t.r.check("card: the image has an MBR with boot, root A, root B and data", cardLayout(c, err)) {
		return
	}
	t.files, err = readBootFiles(ctx, c, t.dir, "bcm2837-rpi-3-b.dtb")
	if !t.r.check("card: kernel, initramfs, cmdline.txt and the Pi 3 DTB are on the boot partition", err) {
		return
	}
	if want := "root=PARTUUID=" + c.Table.PartUUID(card.RootAPartition); !strings.Contains(t.files.Cmdline, want) {
		t.r.check("card: cmdline.txt names root A by PARTUUID", fmt.Errorf("cmdline.txt %q lacks %s", t.files.Cmdline, want))
	}
	t.disk = filepath.Join(t.dir, "sd.img")
	if !t.r.check("card: copied to a 1 GiB virtual SD card", sparseCopy(ctx, t.img, t.disk, diskSize)) {
		return
	}
	t.passphrase = "correct horse battery staple"

	if !t.firstBoot(ctx) {
		return
	}
	if t.claimed {
		d, err := card.Open(t.disk)
		if err == nil {
			_, err = d.BootFile(ctx, "openlolo/setup-code.txt")
			if errors.Is(err, os.ErrNotExist) {
				err = nil
			} else if err == nil {
				err = errors.New("BOOT/openlolo/setup-code.txt is still on the card after the claim")
			}
		}
		t.r.check("card: the setup code is gone from the boot partition after the claim", err)
	}
	if !t.secondBoot(ctx) {
		return
	}
	t.thirdBoot(ctx)
	if raspi {
		t.raspi3b(ctx)
	}
}

func cardLayout(c *card.Card, err error) error {
	if err != nil {
		return err
	}
	want := []byte{0x0c, 0x83, 0x83, 0x83}
	if len(c.Table.Partitions) != 4 {
		return fmt.Errorf("%d partitions, want 4", len(c.Table.Partitions))
	}
	for i, p := range c.Table.Partitions {
		if p.Type != want[i] || p.Number != i+1 {
			return fmt.Errorf("partition %d has type 0x%02x, want 0x%02x", p.Number, p.Type, want[i])
		}
	}
	if !c.Table.Partitions[0].Bootable {
		return errors.New("the boot partition is not marked bootable")
	}
	return nil
}

// up boots the disk on -M virt and waits until the box answers HTTPS.
func (t *test) up(ctx context.Context, label string) (*machine, *client, bool) {
	m, err := boot(ctx, machineSpec{disk: t.disk, files: t.files, echo: t.echo})
	if !t.r.check(label+": QEMU -M virt starts", err) {
		return nil, nil, false
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if _, err := m.con.wait(wctx, "Fingerprint:"); err != nil {
		m.pull()
		t.r.check(label+": openlolo serve starts and prints its fingerprint", fmt.Errorf("%w; console ends:\n%s", err, tail(m.con.text(), 25)))
		return nil, nil, false
	}
	fp := m.con.value("Fingerprint:")
	if t.pin == "" {
		t.pin = fp
		t.name = strings.TrimPrefix(m.con.value("LAN URL:"), "https://")
		t.name = strings.TrimSuffix(t.name, "/")
	} else {
		var err error
		if fp != t.pin {
			err = fmt.Errorf("the console prints fingerprint %s, the first boot printed %s", fp, t.pin)
		}
		t.r.check(label+": the certificate survived (same fingerprint on the console)", err)
	}
	cl, err := newClient(t.name, m.httpsAddr, t.pin)
	if err != nil {
		m.pull()
		t.r.check(label+": pinned client", err)
		return nil, nil, false
	}
	var last error
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for wctx.Err() == nil {
		st, body, _, err := cl.get(wctx, "/healthz")
		if err == nil && st == 200 {
			t.r.figure(label+" boot to HTTPS ready (-M virt, TCG)", "%.1f s", time.Since(m.start).Seconds())
			if k, ok := m.con.kernelStart(); ok {
				t.r.figure(label+" kernel start to HTTPS ready (-M virt, TCG)", "%.1f s", time.Since(k).Seconds())
			}
			t.r.check(label+": /healthz answers over HTTPS with the pinned certificate ("+t.name+")", nil)
			return m, cl, true
		}
		if err == nil {
			err = fmt.Errorf("status %d: %.100s", st, body)
		}
		last = err
		select {
		case <-tick.C:
		case <-wctx.Done():
		}
	}
	m.pull()
	t.r.check(label+": /healthz answers over HTTPS with the pinned certificate", last)
	return nil, nil, false
}

func (t *test) shell(m *machine) shell { return shell{addr: m.shellAddr} }

func (t *test) firstBoot(ctx context.Context) bool {
	m, cl, ok := t.up(ctx, "boot 1")
	if !ok {
		return false
	}
	sh := t.shell(m)
	t.r.check("boot 1: stage 1 found root A by PARTUUID", consoleHas(m.con, "openlolo-stage1: root PARTUUID=", "-> /dev/vda2"))
	t.r.check("boot 1: a wrong pin is refused", wrongPin(ctx, t.name, m.httpsAddr))
	t.r.check("boot 1: the data partition grew to fill the card", dataGrew(ctx, sh))
	t.r.check("boot 1: the root filesystem is read-only squashfs", readOnlyRoot(ctx, sh))

	t.r.check("boot 1: the Wi-Fi pieces are on the root (wpa_supplicant runs, brcmfmac and firmware, wifi.txt parses under busybox)", wifiPieces(ctx, sh))
	t.r.check("boot 1: no usbmuxd on the card; the box's own usbmux looks at the USB ports and says no iPhone is there", noIPhone(ctx, sh))
	t.rss(ctx, sh, "RSS of openlolo serve after boot, idle")
	console := m.con.value("Setup code:")
	out, st, err := sh.run(ctx, "cat /boot/openlolo/setup-code.txt")
	code := strings.TrimSpace(out)
	if err == nil && st != 0 {
		err = fmt.Errorf("BOOT/openlolo/setup-code.txt: %s", out)
	} else if err == nil && (code == "" || !strings.Contains(console, code)) {
		err = fmt.Errorf("BOOT/openlolo/setup-code.txt has %q, the console printed %q", code, console)
	}
	t.r.check("boot 1: the setup code is on the boot partition and on the console", err)
	if code == "" {
		code = console
	}
	err = cl.claim(ctx, code, t.passphrase)
	t.claimed = t.r.check("boot 1: claim with the setup code", err)
	if t.claimed {
		t.granted = t.r.check("boot 1: a device authorization is approved by the owner", t.grant(ctx, cl))
	}
	if t.granted {
		sc := cl.script()
		t.r.check("boot 1: MCP openlolo_status answers", status(ctx, sc, t.tok.AccessToken))
		t.r.check("boot 1: MCP openlolo_screenshot answers with an image", screenshot(ctx, sc, t.tok.AccessToken))
	}
	t.rss(ctx, sh, "RSS of openlolo serve after the claim (argon2id) and the checks above")
	sh.run(ctx, detached("reboot"))
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	return t.r.check("boot 1: clean reboot", m.wait(wctx))
}

// rss prints serve's resident set size as a figure.
func (t *test) rss(ctx context.Context, sh shell, name string) {
	out, st, err := sh.run(ctx, "grep VmRSS /proc/$(pidof openlolo)/status")
	if f := strings.Fields(out); err == nil && st == 0 && len(f) == 3 {
		t.r.figure(name, "%s %s", f[1], f[2])
	}
}

func (t *test) grant(ctx context.Context, cl *client) error {
	if err := cl.login(ctx, t.passphrase); err != nil {
		return err
	}
	sc := cl.script()
	d, err := sc.startDevice(ctx, "openlolo boot test")
	if err != nil {
		return err
	}
	if err := cl.approve(ctx, d.VerificationURI); err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	tok, err := sc.pollToken(pctx, d)
	if err != nil {
		return err
	}
	t.clientID, t.tok = d.ClientID, tok
	return nil
}

func (t *test) secondBoot(ctx context.Context) bool {
	m, owner, ok := t.up(ctx, "boot 2")
	if !ok {
		return false
	}
	cl := owner.script()
	if t.claimed {
		ok, err := cl.claimed(ctx)
		if err == nil && !ok {
			err = errors.New("GET /claim offers the claim form again")
		}
		t.r.check("boot 2: the claim survived the reboot", err)
	}
	if t.granted {
		tok, err := cl.refresh(ctx, t.clientID, t.tok.RefreshToken)
		if t.r.check("boot 2: the grant survived the reboot (its refresh token rotates)", err) {
			t.tok = tok
			t.r.check("boot 2: openlolo_status with the new access token", status(ctx, cl, tok.AccessToken))
		}
	}
	t.r.check("boot 2: the root filesystem is still read-only", readOnlyRoot(ctx, t.shell(m)))
	t.r.check("boot 2: the log file on /data has serve's output and the saved clock is there", logsAndClock(ctx, t.shell(m)))
	t.r.check("boot 2: supervise restarts openlolo serve when it dies", t.restart(ctx, m, cl))

	// pull the power while the client refreshes its tokens
	writes := 0
	if t.granted {
		cut := time.After(3 * time.Second)
	loop:
		for {
			type answer struct {
				tok *tokens
				err error
			}
			ch := make(chan answer, 1)
			go func() { tok, err := cl.refresh(ctx, t.clientID, t.tok.RefreshToken); ch <- answer{tok, err} }()
			select {
			case a := <-ch:
				if a.err != nil {
					t.r.check("boot 2: refreshes before the power cut", a.err)
					break loop
				}
				t.tok = a.tok
				writes++
			case <-cut:
				break loop
			}
		}
	} else {
		// real wait: without a grant, the power is cut while the real VM
		// runs its own writes, at a moment no event marks.
		time.Sleep(2 * time.Second)
	}
	m.pull()
	t.r.figure("power cut", "after %d token refreshes, with one in flight", writes)
	return true
}

func (t *test) thirdBoot(ctx context.Context) {
	m, owner, ok := t.up(ctx, "boot 3 (after the power cut)")
	if !ok {
		return
	}
	cl := owner.script()
	if t.granted {
		// The refresh in flight at the power cut either had not committed
		// (the last tokens work) or had committed and its answer was lost
		// with the power (the box rotated the pair the client holds). The
		// second is told apart from a lost write on the card below.
		err := status(ctx, cl, t.tok.AccessToken)
		if err != nil && strings.Contains(err.Error(), "status 401") {
			t.lastRotated = true
		} else {
			t.r.check("boot 3: the grant still works after the power cut (openlolo_status with the last access token)", err)
		}
	}
	t.shell(m).run(ctx, detached("poweroff"))
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if !t.r.check("boot 3: clean power off", m.wait(wctx)) {
		return
	}
	if !t.r.check("card: the database on the data partition passes PRAGMA integrity_check", t.integrity(ctx)) {
		return
	}
	if t.lastRotated {
		t.r.check("card: the refresh in flight at the power cut had committed (its answer was lost with the power): the pair the client last got was rotated, not lost, and the grant is intact", t.inflightCommitted(ctx))
	}
}

// inflightCommitted checks, on the database taken off the card, that the
// refresh token the client last received was used by a later refresh that
// committed (a newer, unused refresh token of the same grant exists) and
// that the grant is not revoked: the box kept every pair it acknowledged.
func (t *test) inflightCommitted(ctx context.Context) error {
	db, err := sql.Open("sqlite3", "file:"+t.dbCopy+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	sum := sha256.Sum256([]byte(t.tok.RefreshToken))
	var grant string
	var created, used int64
	err = db.QueryRowContext(ctx, "SELECT grant_id, created_ms, used_ms FROM oauth_tokens WHERE hash = ? AND kind = 'refresh'",
		hex.EncodeToString(sum[:])).Scan(&grant, &created, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return errors.New("the last refresh token the box acknowledged is not in the database: an acknowledged write was lost")
	}
	if err != nil {
		return err
	}
	if used == 0 {
		return errors.New("the last access token was refused but its refresh token was never used: the access token was lost")
	}
	var newer int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM oauth_tokens WHERE grant_id = ? AND kind = 'refresh' AND used_ms = 0 AND created_ms >= ?",
		grant, created).Scan(&newer); err != nil {
		return err
	}
	var revoked int64
	if err := db.QueryRowContext(ctx, "SELECT revoked_ms FROM oauth_grants WHERE grant_id = ?", grant).Scan(&revoked); err != nil {
		return err
	}
	if newer != 1 || revoked != 0 {
		return fmt.Errorf("after the in-flight refresh the grant has %d unused refresh tokens (want 1) and revoked_ms %d (want 0)", newer, revoked)
	}
	return nil
}

// integrity takes the SQLite file (and its WAL, if any) off the card's
// data partition and runs PRAGMA integrity_check on the copy.
func (t *test) integrity(ctx context.Context) error {
	c, err := card.Open(t.disk)
	if err != nil {
		return err
	}
	dir := filepath.Join(t.dir, "data")
	os.MkdirAll(dir, 0o700)
	got, err := c.DataFiles(ctx, dir, "/openlolo/openlolo.db")
	if err != nil {
		return err
	}
	for _, extra := range []string{"-wal", "-shm"} {
		if _, err := c.DataFiles(ctx, dir, "/openlolo/openlolo.db"+extra); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	t.dbCopy = got[0]
	db, err := sql.Open("sqlite3", "file:"+got[0])
	if err != nil {
		return err
	}
	defer db.Close()
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return fmt.Errorf("integrity_check: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("integrity_check: %s", res)
	}
	return nil
}

func (t *test) raspi3b(ctx context.Context) {
	disk := filepath.Join(t.dir, "sd-raspi3b.img")
	if !t.r.check("raspi3b: fresh 1 GiB SD card", sparseCopy(ctx, t.img, disk, diskSize)) {
		return
	}
	m, err := boot(ctx, machineSpec{raspi3b: true, dtb: "bcm2837-rpi-3-b.dtb", disk: disk, files: t.files, echo: t.echo})
	if !t.r.check("raspi3b: QEMU -M raspi3b starts with bcm2837-rpi-3-b.dtb", err) {
		return
	}
	defer m.pull()
	wctx, cancel := context.WithTimeout(ctx, 8*time.Minute)
	defer cancel()
	_, err = m.con.wait(wctx, "Fingerprint:")
	if err != nil {
		err = fmt.Errorf("%w; console ends:\n%s", err, tail(m.con.text(), 25))
	}
	t.r.figure("raspi3b boot to serve ready (TCG)", "%.1f s", time.Since(m.start).Seconds())
	if k, ok := m.con.kernelStart(); ok {
		t.r.figure("raspi3b kernel start to serve ready (TCG)", "%.1f s", time.Since(k).Seconds())
	}
	t.r.check("raspi3b: openlolo serve starts", err)
	t.r.check("raspi3b: stage 1 found root A on the SD card (mmcblk0p2)", consoleHas(m.con, "openlolo-stage1: root PARTUUID=", "-> /dev/mmcblk0p2"))
	t.r.check("raspi3b: the data partition grew on first boot", consoleHas(m.con, "openlolo: data: filesystem grown"))
}

// consoleHas checks that one console line holds all parts.
func consoleHas(c *console, parts ...string) error {
	for _, line := range strings.Split(c.text(), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return nil
		}
	}
	return fmt.Errorf("no console line with %q", parts)
}

// wifiPieces checks what Wi-Fi needs on a Pi, short of a radio: the
// dynamically linked wpa_supplicant finds its libraries, the brcmfmac
// module and the Pi chips' firmware are there, and wifi-conf turns a
// wifi.txt into a configuration under the box's own busybox shell.
func wifiPieces(ctx context.Context, sh shell) error {
	cmds := []struct{ cmd, want string }{
		{"wpa_supplicant -v", "wpa_supplicant v"},
		{"modinfo -F filename brcmfmac", "brcmfmac.ko"},
		{"ls /lib/firmware/brcm/", "brcmfmac43455-sdio.raspberrypi,4-model-b.txt"},
		{"printf 'ssid=Home\\r\\npsk=longenough\\r\\ncountry=de\\r\\n' > /tmp/wifi.txt && /usr/libexec/openlolo/wifi-conf /tmp/wifi.txt", "ssid=486f6d65"},
	}
	for _, c := range cmds {
		out, st, err := sh.run(ctx, c.cmd)
		if err != nil {
			return err
		}
		if st != 0 || !strings.Contains(out, c.want) {
			return fmt.Errorf("%s: status %d, %q lacks %q", c.cmd, st, out, c.want)
		}
	}
	return nil
}

// noIPhone checks that the card carries no usbmuxd (the box speaks
// usbmux itself) and that the box's own usbmux, run by selftest on the
// real image, lists no Apple device under QEMU and says so.
func noIPhone(ctx context.Context, sh shell) error {
	const cmd = "if pidof usbmuxd || [ -e /usr/sbin/usbmuxd ]; then echo usbmuxd-present; fi; " +
		"/usr/bin/openlolo selftest --phone coredevice --state /tmp/selftest-coredevice --timeout 30s 2>&1"
	out, st, err := sh.run(ctx, cmd)
	if err != nil {
		return err
	}
	if strings.Contains(out, "usbmuxd-present") {
		return fmt.Errorf("usbmuxd is on the card or running: %q", out)
	}
	if st != 1 || !strings.Contains(out, "FAIL    usbmux           no iPhone on USB") {
		return fmt.Errorf("selftest --phone coredevice: status %d, %q: want exit 1 and \"no iPhone on USB\" from the box's own usbmux", st, out)
	}
	return nil
}

// logsAndClock checks the rotating log on /data and the saved clock.
func logsAndClock(ctx context.Context, sh shell) error {
	out, st, err := sh.run(ctx, "grep -c 'openlolo-serve' /data/log/messages; cat /data/clock")
	if err != nil {
		return err
	}
	f := strings.Fields(out)
	if st != 0 || len(f) != 2 {
		return fmt.Errorf("/data/log/messages or /data/clock: %q (status %d)", out, st)
	}
	if n, _ := strconv.Atoi(f[0]); n == 0 {
		return errors.New("/data/log/messages has no openlolo-serve lines")
	}
	if sec, err := strconv.ParseInt(f[1], 10, 64); err != nil || sec < 1700000000 {
		return fmt.Errorf("/data/clock holds %q, not a recent time", f[1])
	}
	return nil
}

// restart kills serve on the box and waits for supervise to bring HTTPS back.
func (t *test) restart(ctx context.Context, m *machine, cl *client) error {
	if _, st, err := t.shell(m).run(ctx, "kill $(pidof openlolo)"); err != nil || st != 0 {
		return fmt.Errorf("kill openlolo: status %d, %v", st, err)
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if _, err := m.con.wait(wctx, "openlolo serve stopped"); err != nil {
		return err
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for wctx.Err() == nil {
		if st, _, _, err := cl.get(wctx, "/healthz"); err == nil && st == 200 {
			return nil
		}
		select {
		case <-tick.C:
		case <-wctx.Done():
		}
	}
	return errors.New("HTTPS did not come back after serve was killed")
}

func wrongPin(ctx context.Context, name, addr string) error {
	cl, err := newClient(name, addr, strings.Repeat("ab", 32))
	if err != nil {
		return err
	}
	_, _, _, err = cl.get(ctx, "/healthz")
	var pm *boxtls.PinMismatchError
	if !errors.As(err, &pm) {
		return fmt.Errorf("want a pin mismatch error, got %v", err)
	}
	return nil
}

func dataGrew(ctx context.Context, sh shell) error {
	out, st, err := sh.run(ctx, "df -k /data | tail -n 1")
	if err != nil {
		return err
	}
	f := strings.Fields(out)
	if st != 0 || len(f) < 2 {
		return fmt.Errorf("df: %q", out)
	}
	kb, err := strconv.Atoi(f[1])
	if err != nil {
		return fmt.Errorf("df: %q", out)
	}
	if kb < 400*1024 { // the image's data partition is 64 MiB; the card leaves ~570 MiB
		return fmt.Errorf("/data is %d KiB; it did not grow", kb)
	}
	return nil
}

func readOnlyRoot(ctx context.Context, sh shell) error {
	out, _, err := sh.run(ctx, "grep ' / ' /proc/mounts")
	if err != nil {
		return err
	}
	if !strings.Contains(out, " / squashfs ro") {
		return fmt.Errorf("/ is mounted as %q", out)
	}
	out, st, err := sh.run(ctx, "touch /written-by-boottest")
	if err != nil {
		return err
	}
	if st == 0 || !strings.Contains(out, "Read-only") {
		return fmt.Errorf("touch / succeeded or failed otherwise: %q (status %d)", out, st)
	}
	return nil
}

func status(ctx context.Context, cl *client, access string) error {
	res, err := cl.callTool(ctx, access, "openlolo_status", map[string]any{})
	if err != nil {
		return err
	}
	if res.IsError || res.StructuredContent["status"] != "ok" {
		return fmt.Errorf("openlolo_status: isError %v, structuredContent %v", res.IsError, res.StructuredContent)
	}
	return nil
}

func screenshot(ctx context.Context, cl *client, access string) error {
	res, err := cl.callTool(ctx, access, "openlolo_screenshot", map[string]any{"format": "jpeg", "max_size": 512})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("openlolo_screenshot: isError, %v", res.StructuredContent)
	}
	img, mime, err := res.image()
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(img, []byte{0xff, 0xd8, 0xff}) || mime != "image/jpeg" {
		return fmt.Errorf("openlolo_screenshot: %s of %d bytes is not a JPEG", mime, len(img))
	}
	return nil
}

// detached runs cmd on the box a second after the debug shell session
// ends (telnetd hangs up the session's processes when it closes).
func detached(cmd string) string {
	return "setsid sh -c 'sleep 1; " + cmd + "' < /dev/null > /dev/null 2>&1 &"
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
