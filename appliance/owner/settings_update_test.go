package owner_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/appliance/update"
)

// updateCard is a card of temporary files running slot A, with the real
// updater over it.
type updateCard struct {
	dir     string
	u       *update.Updater
	key     ed25519.PrivateKey
	reboots chan string
}

func newUpdateCard(t *testing.T) *updateCard {
	t.Helper()
	dir := t.TempDir()
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	for name, data := range map[string][]byte{
		"disk": make([]byte, 512), "rootA": make([]byte, 1<<20), "rootB": make([]byte, 1<<20),
		"boot/config.txt": []byte("arm_64bit=1\n"), "state/openlolo.db": []byte("db"),
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := &updateCard{dir: dir, key: key, reboots: make(chan string, 1)}
	card := &update.Card{Boot: filepath.Join(dir, "boot"), Disk: filepath.Join(dir, "disk"), RootA: filepath.Join(dir, "rootA"),
		RootB: filepath.Join(dir, "rootB"), Running: update.SlotA, Restart: func(arg string) error { c.reboots <- arg; return nil }}
	var err error
	c.u, err = update.New(update.Config{Slots: card, Key: key.Public().(ed25519.PublicKey),
		Release:  update.Release{Version: "v1", Board: "rpi", Built: 1000},
		StateDir: filepath.Join(dir, "state"), RebootDelay: time.Millisecond,
		Backup: func(ctx context.Context, path string) error { return os.WriteFile(path, []byte("db"), 0o600) }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *updateCard) bundle(t *testing.T, key ed25519.PrivateKey, version string, built int64) []byte {
	t.Helper()
	src := func(name, data string) update.Source {
		return update.Source{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }}
	}
	var buf bytes.Buffer
	_, err := update.Write(&buf, key, update.Manifest{Version: version, Board: "rpi", Built: built}, []update.Source{
		src(update.RootName, strings.Repeat("root "+version, 50000)), src("boot/cmdline.txt", "root=PARTUUID=00000000-02 ro"),
	})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// upload posts a bundle as the Settings form does: csrf first, then the file.
func upload(t *testing.T, c *http.Client, base, csrf string, bundle []byte, allowOlder, asJSON bool) (*http.Response, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if csrf != "" {
		mw.WriteField("csrf", csrf)
	}
	if allowOlder {
		mw.WriteField("allow_older", "1")
	}
	fw, _ := mw.CreateFormFile("bundle", "openlolo.update")
	fw.Write(bundle)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, base+"/settings/update", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", base)
	if asJSON {
		req.Header.Set("Accept", "application/json")
	}
	return ownertest.Do(t, c, req)
}

func TestSettingsUpdateUpload(t *testing.T) {
	t.Parallel()
	card := newUpdateCard(t)
	b, c := claimedBox(t, boxOpts{updater: card.u})
	res, page := ownertest.Get(t, c, b.url, "/settings")
	if res.StatusCode != 200 || !strings.Contains(page, "Software update") || !strings.Contains(page, "v1 (rpi, slot A)") {
		t.Fatalf("GET /settings: %d %s", res.StatusCode, ownertest.Text(page))
	}
	csrf := ownertest.FormToken(page)
	_, other, _ := ed25519.GenerateKey(nil)

	// refusals: each says its code on the page, and nothing restarts
	res, page = upload(t, c, b.url, csrf, card.bundle(t, other, "v2", 2000), false, false)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, "UPDATE_BAD_SIGNATURE") {
		t.Errorf("wrongly signed: %d %s", res.StatusCode, ownertest.Text(page))
	}
	res, page = upload(t, c, b.url, csrf, card.bundle(t, card.key, "v0", 500), false, true)
	var ans struct{ Status, Code, Message string }
	json.Unmarshal([]byte(page), &ans)
	if res.StatusCode != http.StatusBadRequest || ans.Code != "UPDATE_NOT_NEWER" || !strings.Contains(ans.Message, "older than the running v1") {
		t.Errorf("older, as JSON: %d %s", res.StatusCode, page)
	}
	if _, page := ownertest.Get(t, c, b.url, "/settings"); !strings.Contains(page, "The last update was refused") || !strings.Contains(page, "UPDATE_NOT_NEWER") {
		t.Errorf("Settings after a refusal: %s", ownertest.Text(page))
	}
	// a form without the token, and a visitor without a session, change nothing
	res, _ = upload(t, c, b.url, "forged", card.bundle(t, card.key, "v2", 2000), false, false)
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("forged token: %d, want 403", res.StatusCode)
	}
	anon := ownertest.NewClient(t, b.srv)
	if res, _ := upload(t, anon, b.url, csrf, card.bundle(t, card.key, "v2", 2000), false, false); res.StatusCode != http.StatusForbidden {
		t.Errorf("no session: %d, want 403", res.StatusCode)
	}
	select {
	case <-card.reboots:
		t.Fatal("a refused upload restarted the box")
	default:
	}

	// the good bundle installs and the box restarts into it
	res, page = upload(t, c, b.url, csrf, card.bundle(t, card.key, "v2", 2000), false, false)
	if res.StatusCode != 200 || !strings.Contains(page, "The update is written and checked") {
		t.Fatalf("good bundle: %d %s", res.StatusCode, ownertest.Text(page))
	}
	<-card.reboots
	if got, _ := os.ReadFile(filepath.Join(card.dir, "rootB")); !bytes.HasPrefix(got, []byte("root v2root v2")) {
		t.Error("slot B was not written")
	}
	res, page = ownertest.Get(t, c, b.url, "/settings/update/progress")
	if res.StatusCode != 200 || !strings.Contains(page, `"state":"rebooting"`) || !strings.Contains(page, `"version":"v2"`) {
		t.Errorf("progress: %d %s", res.StatusCode, page)
	}
}

func TestSettingsWithoutUpdater(t *testing.T) {
	t.Parallel()
	b, c := claimedBox(t, boxOpts{})
	_, page := ownertest.Get(t, c, b.url, "/settings")
	if !strings.Contains(page, "This box does not update itself") {
		t.Errorf("Settings: %s", ownertest.Text(page))
	}
	res, page := upload(t, c, b.url, ownertest.FormToken(page), []byte("x"), false, true)
	if res.StatusCode != http.StatusNotFound || !strings.Contains(page, "UPDATE_UNSUPPORTED") {
		t.Errorf("upload: %d %s", res.StatusCode, page)
	}
}

// streamUpload posts csrf and then a bundle part read from file as it
// goes (the way openlolo update streams), with contentLength declared
// when it is not 0. sent counts the bytes of the part the box took.
func streamUpload(t *testing.T, c *http.Client, base, csrf string, file io.Reader, contentLength int64) (status int, answer string, sent *atomic.Int64, err error) {
	t.Helper()
	sent = new(atomic.Int64)
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		mw.WriteField("csrf", csrf)
		fw, err := mw.CreateFormFile("bundle", "openlolo.update")
		if err == nil {
			_, err = io.Copy(fw, countReader{file, sent})
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	t.Cleanup(func() { pr.CloseWithError(errors.New("test over")) })
	req, _ := http.NewRequest(http.MethodPost, base+"/settings/update", pr)
	req.ContentLength = contentLength
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", base)
	req.Header.Set("Accept", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return 0, "", sent, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), sent, nil
}

type countReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// zeros is an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestUpdateRefusedEarly pins issue 22 D3: a refused upload was read to
// its end (2 GiB in 15-17 s), and a box without an updater skipped the
// size cap and answered 500. Each refusal now answers 4xx having taken
// little of the upload, and closes the connection.
func TestUpdateRefusedEarly(t *testing.T) {
	t.Parallel()
	card := newUpdateCard(t)
	_, other, _ := ed25519.GenerateKey(nil)
	const padding = 256 << 20
	for _, tc := range []struct {
		name          string
		updater       bool
		file          io.Reader
		contentLength int64
		status        int
		code          string
	}{
		{name: "no updater", file: io.LimitReader(zeros{}, padding), status: http.StatusNotFound, code: "UPDATE_UNSUPPORTED"},
		{name: "bad signature", updater: true, file: io.MultiReader(bytes.NewReader(card.bundle(t, other, "v2", 2000)), io.LimitReader(zeros{}, padding)),
			status: http.StatusBadRequest, code: "UPDATE_BAD_SIGNATURE"},
		{name: "declared too large", updater: true, file: zeros{}, contentLength: owner.MaxBundle + 1, status: http.StatusRequestEntityTooLarge, code: "UPDATE_TOO_LARGE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o boxOpts
			if tc.updater {
				o.updater = card.u
			}
			b, c := claimedBox(t, o)
			_, page := ownertest.Get(t, c, b.url, "/settings")
			status, answer, sent, err := streamUpload(t, c, b.url, ownertest.FormToken(page), tc.file, tc.contentLength)
			if err != nil {
				t.Fatalf("upload: %v", err)
			}
			if status != tc.status || !strings.Contains(answer, tc.code) {
				t.Errorf("upload: %d %s, want %d with %s", status, answer, tc.status, tc.code)
			}
			if n := sent.Load(); n > 32<<20 {
				t.Errorf("the box took %d bytes of a refused upload before answering, want under 32 MiB", n)
			}
		})
	}
}

// TestUpdateSlowUpload pins issue 22 D2: an upload that took longer than
// the server's read timeout always failed (UPDATE_TRUNCATED, i/o
// timeout). The upload's deadline now follows its progress: a slow one
// that keeps moving installs; one that stalls for longer than
// UploadIdle fails.
func TestUpdateSlowUpload(t *testing.T) {
	t.Parallel()
	// a read timeout well above a request's start on a loaded machine;
	// the slow upload takes more than twice as long
	const readTimeout, idle = time.Second, 1500 * time.Millisecond
	for _, tc := range []struct {
		name         string
		chunks       int           // the bundle is sent in this many parts
		every        time.Duration // one part each
		wantInstalls bool
	}{
		{name: "slow", chunks: 40, every: 60 * time.Millisecond, wantInstalls: true},
		{name: "stalled", chunks: 2, every: 2 * idle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			card := newUpdateCard(t)
			b, c := claimedBox(t, boxOpts{updater: card.u, readTimeout: readTimeout, uploadIdle: idle})
			_, page := ownertest.Get(t, c, b.url, "/settings")
			bundle := card.bundle(t, card.key, "v2", 2000)
			start := time.Now()
			file := &paced{r: bytes.NewReader(bundle), chunk: len(bundle)/tc.chunks + 1, every: tc.every}
			status, answer, _, err := streamUpload(t, c, b.url, ownertest.FormToken(page), file, 0)
			took := time.Since(start)
			if tc.wantInstalls {
				if err != nil || status != http.StatusOK || !strings.Contains(answer, `"installed"`) {
					t.Fatalf("an upload of %v (read timeout %v): %d %s %v", took, readTimeout, status, answer, err)
				}
				<-card.reboots
				return
			}
			if err == nil && (status == http.StatusOK || !strings.Contains(answer, "UPDATE_TRUNCATED")) {
				t.Errorf("an upload stalled for %v (idle limit %v): %d %s", tc.every, idle, status, answer)
			}
			select {
			case <-card.reboots:
				t.Error("a stalled upload installed")
			default:
			}
		})
	}
}

// paced reads chunk bytes of r every period: the first at once, the
// next at each tick of a ticker.
type paced struct {
	r     io.Reader
	chunk int
	every time.Duration
	tick  *time.Ticker
}

func (p *paced) Read(b []byte) (int, error) {
	if p.tick == nil {
		p.tick = time.NewTicker(p.every)
	} else {
		<-p.tick.C
	}
	return p.r.Read(b[:min(len(b), p.chunk)])
}

// TestSettingsUpdateURL: the box fetches a pasted URL in the background
// and the Settings page reloads itself with the progress until the box
// restarts.
func TestSettingsUpdateURL(t *testing.T) {
	t.Parallel()
	card := newUpdateCard(t)
	bundle := card.bundle(t, card.key, "v2", 2000)
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(bundle) }))
	defer files.Close()
	b, c := claimedBox(t, boxOpts{updater: card.u})
	_, page := ownertest.Get(t, c, b.url, "/settings")
	csrf := ownertest.FormToken(page)
	res, page := ownertest.PostForm(t, c, b.url, "/settings/update/url", url.Values{"csrf": {csrf}, "url": {files.URL + "/v2.update"}})
	if res.StatusCode != 200 || !strings.Contains(page, "The box is fetching the bundle") {
		t.Fatalf("POST /settings/update/url: %d %s", res.StatusCode, ownertest.Text(page))
	}
	select {
	case <-card.reboots:
	case <-time.After(30 * time.Second):
		t.Fatal("the fetched bundle did not install")
	}
	_, page = ownertest.Get(t, c, b.url, "/settings")
	if !strings.Contains(page, "Version v2 is written and checked") || !strings.Contains(page, `data-reload="2"`) {
		t.Errorf("Settings after the fetch: %s", ownertest.Text(page))
	}
	res, _ = ownertest.PostForm(t, c, b.url, "/settings/update/url", url.Values{"csrf": {"forged"}, "url": {files.URL}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("forged token: %d", res.StatusCode)
	}
}
