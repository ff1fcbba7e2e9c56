package setupnet

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openlolo/openlolo/appliance/tmplexec"
)

// Seen is a network the radio sees.
type Seen struct {
	SSID     string // "" for a hidden network (join it by name)
	Signal   int    // dBm
	Security string // e.g. "wpa2-personal", "open"
}

// Scanner lists the networks the radio sees; cmd/openlolo adapts hw/wifi.
type Scanner interface {
	Scan(ctx context.Context) ([]Seen, error)
}

// Owner is the box's owner as the setup page needs it; appliance/owner's
// Pages implements it.
type Owner interface {
	// Claimed reports whether the box has an owner.
	Claimed(ctx context.Context) (bool, error)
	// ClaimInPerson claims the unclaimed box without the setup code: the
	// setup network is the proof of presence. It returns ErrClaimed or
	// ErrOwnerPassphrase for those refusals.
	ClaimInPerson(ctx context.Context, passphrase string) error
	// CheckOwnerPassphrase checks the owner's passphrase for r under the
	// owner login's lock-out: while r's source (or the box) is past its
	// limit, it answers an error wrapping a *LockedError without checking.
	CheckOwnerPassphrase(r *http.Request, passphrase string) (bool, error)
}

// LockedError is the Owner's refusal to check a passphrase while too many
// wrong ones came in.
type LockedError struct {
	Until time.Time
}

func (e *LockedError) Error() string {
	return "setupnet: too many wrong owner passphrases; locked until " + e.Until.UTC().Format(time.RFC3339)
}

// Page is the setup network's own page: scan, join, the handoff, the last
// failure, and the claim. It is served on plain HTTP behind [Captive], on
// the setup network's address only: it answers nothing that arrived on
// another local address, so mounting it on the LAN listener by mistake
// cannot turn the LAN into a presence proof. Form posts are checked with
// http.CrossOriginProtection (no cookies: the box is unclaimed, and the
// Secure session cookie cannot live on plain HTTP). Once the box has an
// owner, joining takes the owner's passphrase.
type Page struct {
	Machine *Machine
	Scanner Scanner
	Owner   Owner
	// Addr is the setup network's address (e.g. 192.168.4.1).
	Addr netip.Addr
	// BoxName is the box's .local name ("openlolo-3f2a.local") and LANURL
	// the address to open once the box is on the home network
	// ("https://openlolo-3f2a.local/").
	BoxName string
	LANURL  string
	Log     *slog.Logger

	// verify, in tests, checks each rendering against html/template's.
	verify func(d pageData, got []byte, err error)
}

// Handler returns the page's handler.
func (p *Page) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", p.index)
	mux.HandleFunc("POST /join", p.join)
	mux.HandleFunc("POST /claim", p.claim)
	cop := http.NewCrossOriginProtection()
	return p.onSetupNetwork(cop.Handler(mux))
}

// onSetupNetwork refuses requests that arrived on another local address.
func (p *Page) onSetupNetwork(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !p.arrivedOnSetup(r) {
			http.Error(w, "This page is served on the setup network only.", http.StatusForbidden)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Frame-Options", "DENY")
		h.ServeHTTP(w, r)
	})
}

// arrivedOnSetup reports whether r came in on the setup address.
func (p *Page) arrivedOnSetup(r *http.Request) bool {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || !p.Addr.IsValid() {
		return false
	}
	ap, err := netip.ParseAddrPort(la.String())
	return err == nil && ap.Addr().Unmap() == p.Addr.Unmap()
}

type pageData struct {
	Status   Status
	Reason   string
	Networks []Seen
	ScanErr  string
	Claimed  bool
	Notice   string
	Error    string
	BoxName  string
	LANURL   string
	Handoff  bool
}

func (p *Page) log() *slog.Logger {
	if p.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Log
}

func (p *Page) data(ctx context.Context) (pageData, error) {
	d := pageData{Status: p.Machine.Status(), BoxName: p.BoxName, LANURL: p.LANURL}
	if d.Status.LastError != nil {
		d.Reason = d.Status.LastError.Reason.Sentence()
	}
	claimed, err := p.Owner.Claimed(ctx)
	if err != nil {
		return d, err
	}
	d.Claimed = claimed
	if p.Scanner != nil && d.Status.State == StateOpen {
		nets, err := p.Scanner.Scan(ctx)
		if err != nil {
			d.ScanErr = "The box could not scan for networks; type your network's name below."
			p.log().Warn("setupnet: scan", "err", err)
		}
		d.Networks = Strongest(nets)
	}
	return d, nil
}

// Strongest returns nets without hidden entries and duplicates (each name
// once, at its strongest), strongest first.
func Strongest(nets []Seen) []Seen {
	best := map[string]Seen{}
	for _, n := range nets {
		if n.SSID == "" {
			continue
		}
		if b, ok := best[n.SSID]; !ok || n.Signal > b.Signal {
			best[n.SSID] = n
		}
	}
	out := make([]Seen, 0, len(best))
	for _, n := range best {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b Seen) int {
		if a.Signal != b.Signal {
			return b.Signal - a.Signal
		}
		return strings.Compare(a.SSID, b.SSID)
	})
	return out
}

func (p *Page) render(w http.ResponseWriter, r *http.Request, status int, d pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	// The page is drawn seldom (a person setting the box up); parsing its
	// 2 KB each time keeps no state between requests.
	t, err := tmplexec.Parse("setup", pageText, nil)
	if err == nil {
		var buf bytes.Buffer
		err = t.Execute(&buf, "setup", d)
		if p.verify != nil {
			p.verify(d, buf.Bytes(), err)
		}
		w.Write(buf.Bytes())
	}
	if err != nil {
		p.log().Warn("setupnet: page", "err", err)
	}
}

func (p *Page) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	d, err := p.data(r.Context())
	if err != nil {
		p.internal(w, err)
		return
	}
	d.Error = msg
	p.render(w, r, status, d)
}

func (p *Page) internal(w http.ResponseWriter, err error) {
	p.log().Error("setupnet: page", "err", err)
	http.Error(w, "The box could not read its state; try again.", http.StatusInternalServerError)
}

func (p *Page) index(w http.ResponseWriter, r *http.Request) {
	d, err := p.data(r.Context())
	if err != nil {
		p.internal(w, err)
		return
	}
	p.render(w, r, http.StatusOK, d)
}

func (p *Page) join(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	ctx := r.Context()
	claimed, err := p.Owner.Claimed(ctx)
	if err != nil {
		p.internal(w, err)
		return
	}
	if claimed {
		ok, err := p.Owner.CheckOwnerPassphrase(r, r.PostFormValue("owner"))
		var le *LockedError
		if errors.As(err, &le) {
			wait := max(time.Until(le.Until).Round(time.Second), time.Second)
			w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())))
			p.fail(w, r, http.StatusTooManyRequests, "Too many wrong owner passphrases: the box does not check any more for "+wait.String()+". Wait, then try again.")
			return
		}
		if err != nil {
			p.internal(w, err)
			return
		}
		if !ok {
			p.fail(w, r, http.StatusForbidden, "This box has an owner: type the owner's passphrase to change its Wi-Fi.")
			return
		}
	}
	ssid := r.PostFormValue("ssid")
	if other := r.PostFormValue("hidden"); ssid == "" || ssid == "-" {
		ssid = other
	}
	n := Network{SSID: ssid, Passphrase: r.PostFormValue("passphrase")}
	if err := p.Machine.Join(ctx, n); err != nil {
		var e *Error
		if errors.As(err, &e) {
			status := http.StatusBadRequest
			if e.Code == CodeBusy || e.Code == CodeClosed {
				status = http.StatusConflict
			}
			p.fail(w, r, status, e.Message)
			return
		}
		p.internal(w, err)
		return
	}
	d, err := p.data(ctx)
	if err != nil {
		p.internal(w, err)
		return
	}
	d.Handoff = true
	p.render(w, r, http.StatusAccepted, d)
}

func (p *Page) claim(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	pass := r.PostFormValue("passphrase")
	if pass != r.PostFormValue("confirm") {
		p.fail(w, r, http.StatusBadRequest, "The two passphrases differ. Type the same passphrase twice.")
		return
	}
	err := p.Owner.ClaimInPerson(r.Context(), pass)
	switch {
	case err == nil:
	case errors.Is(err, ErrClaimed):
		p.fail(w, r, http.StatusConflict, "This box already has an owner.")
		return
	case errors.Is(err, ErrOwnerPassphrase):
		p.fail(w, r, http.StatusBadRequest, "Choose a passphrase of at least 10 characters (and at most 1024 bytes).")
		return
	default:
		p.internal(w, err)
		return
	}
	p.log().Info("setupnet: box claimed on the setup network", "remote", r.RemoteAddr)
	d, err := p.data(r.Context())
	if err != nil {
		p.internal(w, err)
		return
	}
	d.Notice = "The box is yours. Choose its Wi-Fi below; then log in at " + p.LANURL + " with your passphrase."
	p.render(w, r, http.StatusOK, d)
}

// Owner's claim errors; the adapter maps appliance/owner's onto them.
var (
	ErrClaimed         = errors.New("setupnet: the box already has an owner")
	ErrOwnerPassphrase = errors.New("setupnet: the owner passphrase is under 10 characters or over 1024 bytes")
)

// pageText is page.html as html/template escapes it (see appliance/tmplexec),
// made by `go test ./appliance/setupnet -run TestEscapedPage -update`,
// which also fails while the two differ.
//
//go:embed page.tmpl
var pageText string
