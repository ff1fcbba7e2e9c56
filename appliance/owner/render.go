package owner

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/tmplexec"
	"github.com/openlolo/openlolo/appliance/update"
)

// escapedFS holds the pages as html/template escapes them (see
// appliance/tmplexec): one file of {{define}} blocks per page, made from
// templates/*.html by `go test ./appliance/owner -run TestEscapedPages
// -update`, which also fails while they differ.
//
//go:embed templates/escaped/*.tmpl
var escapedFS embed.FS

//go:embed static
var staticFS embed.FS

// pageNames are the templates parsed at start; each is rendered inside
// layout.html.
var pageNames = [...]string{"claim", "login", "message", "status", "activity", "connect", "access", "authorize", "settings", "claim_button", "access_revoke", "help", "asks"}

// pageParts are sections kept in files of their own, parsed with a page.
var pageParts = map[string][]string{"settings": {"settings_update", "settings_account", "settings_reset", "settings_wifi", "settings_asks", "settings_identity", "settings_prefs"},
	"status": {"status_problems", "asks_pending"}, "access": {"asks_pending", "access_asks"}, "asks": {"asks_pending"}, "authorize": {"access_asks"}}

// basePage is what every page's layout needs.
type basePage struct {
	Title    string
	Nav      string // the nav entry to highlight
	Box      BoxInfo
	CSRF     string // the form token: the session's, or the pre-session one
	LoggedIn bool
	Script   bool // include static/live.js
	Reload   int  // with Script: reload the page every Reload seconds until the owner touches a form
}

// page gives the layout access to the embedded basePage.
type page interface{ base() *basePage }

func (b *basePage) base() *basePage { return b }

// pageEntries are the templates the box executes of a page's set: every
// page's layout, and Status's control block (which the page's script
// fetches on its own).
var pageEntries = map[string][]string{"status": {"layout", "control"}}

// entries are the templates executed of page's set.
func entries(page string) []string {
	if e := pageEntries[page]; e != nil {
		return e
	}
	return []string{"layout"}
}

// funcs are the functions the pages call.
func (p *Pages) funcs() tmplexec.FuncMap {
	return tmplexec.FuncMap{
		"ago":   p.ago,
		"left":  p.left,
		"clock": clock,
		"hms":   hms,
		"when":  when,
		"stamp": stamp,
		"scope": scopeWords,
		"mask":  maskID,
		"label": phoneNames.Label,
		// The methods the pages use, as functions: tmplexec calls no
		// method by name (see its doc).
		"zero":         time.Time.IsZero,
		"owned":        control.LeaseState.Owner,
		"filtered":     activityFilter.Any,
		"redirectHost": (*oauth.AuthorizeRequest).RedirectHost,
		"signalWords":  WiFiView.SignalWords,
		"summary":      api.Problem.Summary,
		"thumbPath":    Activity.ThumbPath,
		"shown":        shown,
		"percent":      update.Progress.Percent,
		"lifeName":     lifeName,
		"pin":          spkiPin,
		"resetCmd":     p.resetCommand,
	}
}

// parseTemplates parses every page's escaped set once, failing on the
// first broken or missing one.
func (p *Pages) parseTemplates() error {
	funcs := p.funcs()
	p.tmpl = make(map[string]*tmplexec.Set, len(pageNames))
	for _, name := range pageNames {
		text, err := escapedFS.ReadFile("templates/escaped/" + name + ".tmpl")
		if err != nil {
			return fmt.Errorf("owner: page %s: %w", name, err)
		}
		t, err := tmplexec.Parse(name, string(text), funcs)
		if err != nil {
			return fmt.Errorf("owner: parse page %s: %w", name, err)
		}
		for _, e := range append(entries(name), "content") {
			if !t.Has(e) {
				return fmt.Errorf("owner: page %s defines no %s", name, e)
			}
		}
		p.tmpl[name] = t
	}
	return nil
}

// execute runs entry of page's set with data into buf.
func (p *Pages) execute(buf *bytes.Buffer, page, entry string, data any) error {
	err := p.tmpl[page].Execute(buf, entry, data)
	if p.verify != nil {
		p.verify(page, entry, data, buf.Bytes(), err)
	}
	return err
}

// render writes the named page with status, or a 500 if it fails to render.
// formTargets widen the CSP's form-action (see setHeaders).
func (p *Pages) render(w http.ResponseWriter, r *http.Request, status int, name string, data page, formTargets ...string) {
	b := data.base()
	if b.Box.Name == "" { // not filled in by the page
		b.Box = p.info()
	}
	var buf bytes.Buffer
	if err := p.execute(&buf, name, "layout", data); err != nil {
		p.log.Error("owner: render page", "page", name, "err", err)
		setHeaders(w)
		http.Error(w, "The box could not draw this page; see its log.", http.StatusInternalServerError)
		return
	}
	setHeaders(w, formTargets...)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// messagePage is a page with one message: errors, locks, confirmations.
type messagePage struct {
	basePage
	Heading string
	Text    string
	Link    string
	LinkTo  string
}

// message renders a message page; for errors, status is its HTTP status.
func (p *Pages) message(w http.ResponseWriter, r *http.Request, status int, heading, text, linkText, linkTo string) {
	mp := &messagePage{basePage: basePage{Title: heading}, Heading: heading, Text: text, Link: linkText, LinkTo: linkTo}
	if s, ok := sessionFrom(r.Context()); ok {
		mp.LoggedIn, mp.CSRF = true, s.csrf
	}
	p.render(w, r, status, "message", mp)
}

func (p *Pages) info() BoxInfo {
	if p.cfg.Info == nil {
		return BoxInfo{BoxInfo: api.BoxInfo{Name: "openlolo"}}
	}
	i := p.cfg.Info()
	if i.Name == "" {
		i.Name = "openlolo"
	}
	return i
}

func (p *Pages) static() http.Handler {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	// Embedded files have no modification time; an ETag of their content
	// lets browsers revalidate instead of downloading them again.
	etags := map[string]string{}
	fs.WalkDir(sub, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := fs.ReadFile(sub, name); err == nil {
				sum := sha256.Sum256(b)
				etags["/"+name] = `"` + hex.EncodeToString(sum[:8]) + `"`
			}
		}
		return nil
	})
	files := http.StripPrefix("/static", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setHeaders(w)
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		if tag, ok := etags[strings.TrimPrefix(r.URL.Path, "/static")]; ok {
			w.Header().Set("ETag", tag)
		}
		files.ServeHTTP(w, r)
	})
}

// ago says how long before now t was, in words.
func (p *Pages) ago(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return span(p.now().Sub(t)) + " ago"
}

// left says how long from now until t.
func (p *Pages) left(t time.Time) string {
	if t.IsZero() {
		return "until removed"
	}
	d := t.Sub(p.now())
	if d <= 0 {
		return "expired"
	}
	return span(d) + " left"
}

func span(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		h := int(d / time.Hour)
		if m := int(d%time.Hour) / int(time.Minute); m != 0 && h < 10 {
			return fmt.Sprintf("%d h %d min", h, m)
		}
		return fmt.Sprintf("%d h", h)
	default:
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	}
}

// stamp formats t to the second in the box's time zone, naming the zone.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Local().Format("2006-01-02 15:04:05 MST")
}

// clock formats t in UTC for tables.
func clock(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// when writes text, a time t as the box shows it (clock, stamp), as a
// <time> element that the page's script (live.js) rewrites in the
// reader's own time zone.
func when(t time.Time, text string) tmplexec.HTML {
	if t.IsZero() {
		return tmplexec.HTML(tmplexec.EscapeHTML(text))
	}
	return tmplexec.HTML(`<time class="local" datetime="` + t.UTC().Format(time.RFC3339) + `">` + tmplexec.EscapeHTML(text) + `</time>`)
}

// shown is a thumbnail's side on the page, of n pixels: half of them, so
// it stays sharp on a dense screen.
func shown(n int) int { return max(1, n/2) }

// hms formats t in UTC to the second, for a deadline minutes away.
func hms(t time.Time) string { return t.UTC().Format("15:04:05 UTC") }

// scopeWords says what a scope lets a client do.
func scopeWords(s string) string {
	switch api.Scope(s) {
	case api.ScopePhoneRead:
		return "see the phone's screen and state"
	case api.ScopePhoneControl:
		return "tap, type and press buttons on the phone"
	case api.ScopeOwnerAdmin:
		return "administer the box"
	}
	return s
}

// maskID shows the start and end of a client id.
func maskID(id string) string {
	if len(id) <= 10 {
		return id
	}
	return id[:6] + "…" + id[len(id)-4:]
}

// lifeName names a grant life for the owner.
func lifeName(l string) string {
	switch l {
	case "24h":
		return "24 hours"
	case "30d":
		return "30 days, renewed on use"
	case "forever":
		return "until removed"
	}
	return l
}

// localPath reports whether next is a path on this box, safe to redirect
// to. Browsers parse a Location by the WHATWG URL rules, which drop tabs
// and newlines anywhere, trim spaces and control characters, and read a
// backslash as a slash: "/\t/evil.example" is "//evil.example" to them,
// another host. So next must start with one slash not followed by a slash
// or backslash, and hold only printable ASCII other than space and
// backslash (anything else must come percent-encoded, as the box's own
// links do).
func localPath(next string) bool {
	if len(next) == 0 || len(next) > 4096 || next[0] != '/' {
		return false
	}
	if len(next) > 1 && (next[1] == '/' || next[1] == '\\') {
		return false
	}
	for i := 0; i < len(next); i++ {
		if c := next[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return false
		}
	}
	u, err := url.Parse(next)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil && u.Opaque == ""
}

// spkiPin writes a public key pin the way curl and openlolo pair take it.
func spkiPin(pin string) string {
	if pin == "" || strings.HasPrefix(pin, "sha256//") {
		return pin
	}
	return "sha256//" + pin
}
