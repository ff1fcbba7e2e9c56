package appliance

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/entry"
	"github.com/openlolo/openlolo/appliance/mcp"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/ocr"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/panel"
	"github.com/openlolo/openlolo/appliance/profiles"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/appliance/update"
	"github.com/openlolo/openlolo/hw/phone"
	boxtls "github.com/openlolo/openlolo/tls"
)

// Config is what a box is made of. StateDir and Phone are required; the
// zero value of every other field is documented. Fields are read by New
// only.
type Config struct {
	// StateDir holds the database, the certificate and the box id. It is
	// created with mode 0700 if missing (and tightened to 0700 if looser).
	StateDir string
	// Name is the box name (a DNS label); "" means [DefaultName].
	Name string
	// Version is reported by /healthz and the box page; "" means "dev".
	Version string
	// Phone is the attached phone. The box uses it but does not close it.
	Phone phone.Phone
	// LANAddr is the HTTPS address; "" means ":443".
	LANAddr string
	// HTTPAddr, when set, is a plain-HTTP address that only redirects to
	// HTTPS.
	HTTPAddr string
	// HTTPFront, when set, wraps the plain-HTTP entry's handler (serve
	// --wifi: requests that arrived on the setup network's address go to
	// its page, the rest to the redirects).
	HTTPFront func(http.Handler) http.Handler
	// RotateCert makes a new LAN certificate instead of reusing the stored
	// one.
	RotateCert bool
	// SetupCodeFile, when set, also receives the owner setup code until
	// the box is claimed (the SD image's boot partition).
	SetupCodeFile string
	// MDNS advertises the LAN entry over mDNS (_openlolo._tcp,
	// _https._tcp and <name>.local) while the box runs.
	MDNS bool
	// Tailnet turns the remote entry (a tsnet node named after the box,
	// its state in StateDir/tailscale) on, unless the owner turned it off
	// on the Settings page; the page's choice is kept in the store.
	Tailnet bool
	// TSAuthKey joins the tailnet at the node's first start.
	TSAuthKey string
	// Funnel also publishes /mcp and OAuth on the internet (Tailscale
	// Funnel).
	Funnel bool
	// TailnetControlURL is the coordination server; "" means
	// Tailscale's (tests run their own).
	TailnetControlURL string
	// TailnetCerts gives the remote entry's certificates; nil means the
	// tailnet's own (tests use a local CA).
	TailnetCerts entry.CertSource
	// Panel is the box's button and status LED (cmd/openlolo adapts
	// hw/gpio to it): a short press claims an unclaimed box, a 10 s hold
	// resets it, and the LED shows the box's state. nil (or one with
	// nothing attached): none.
	Panel panel.Panel
	// CPUInfo is the path of the board's cpuinfo, for the default name;
	// "" means /proc/cpuinfo.
	CPUInfo string
	// ShutdownTimeout bounds how long Run waits for in-flight requests
	// when its context ends; 0 means 10 seconds.
	ShutdownTimeout time.Duration
	// WiFi is the box's Wi-Fi radio and setup network (serve --wifi): the
	// Settings page shows and changes it, and the button held 5 to 10 s
	// and let go opens the setup network. nil: none.
	WiFi owner.WiFi
	// Update lets the box update itself from signed bundles (the SD
	// image); nil: the Settings page says this box does not update itself.
	Update *UpdateConfig
	// Logger receives the box's logs; nil discards them.
	Logger *slog.Logger
	// Out receives the lines a person starting the box reads (URL,
	// fingerprint, pin, setup code); nil discards them.
	Out io.Writer
}

// Box is a running (or ready to run) openlolo box.
type Box struct {
	cfg     Config
	log     *slog.Logger
	id      atomic.Pointer[identity] // the name and the LAN certificate
	idMu    sync.Mutex               // serialises renames and rotations
	store   *store.Store
	mux     *http.ServeMux
	lan     *entry.Server
	redir   *entry.Server // nil without Config.HTTPAddr
	oauth   *oauth.Server
	control *control.Service
	owner   *owner.Pages
	mcp     *mcp.Handler
	remote  *remote         // the remote (tailnet) entry
	panel   *controls       // the button and the LED
	updater *update.Updater // nil without Config.Update
	trial   bool            // this boot is a new version's trial (update.Recover)

	// life is the services' context: it outlives Run's context so
	// background work (the control service's event follower) keeps going
	// while requests drain, and ends in Close, before the store closes.
	life     context.Context
	stopLife context.CancelFunc

	// The mDNS announcement: its context (Run's) and how to withdraw it;
	// a rename makes it again under the new name.
	mdnsMu   sync.Mutex
	mdnsCtx  context.Context
	mdnsStop func()

	closeOnce sync.Once
	closeErr  error
}

// New prepares a box: state directory, name, certificate, database, the
// services and both listeners. Nothing is served until [Box.Run].
func New(ctx context.Context, cfg Config) (_ *Box, err error) {
	if cfg.StateDir == "" {
		return nil, errors.New("appliance: no state directory: pass --state DIR")
	}
	if cfg.Phone == nil {
		return nil, errors.New("appliance: no phone backend")
	}
	if cfg.LANAddr == "" {
		cfg.LANAddr = ":443"
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = 10 * time.Second
	}
	if cfg.CPUInfo == "" {
		cfg.CPUInfo = "/proc/cpuinfo"
	}
	b := &Box{cfg: cfg, log: cfg.Logger, mux: http.NewServeMux()}
	b.life, b.stopLife = context.WithCancel(context.WithoutCancel(ctx))
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	if err := makeStateDir(cfg.StateDir); err != nil {
		return nil, err
	}
	name, err := boxName(cfg)
	if err != nil {
		return nil, err
	}
	cert, err := boxtls.Load(boxtls.Options{Dir: cfg.StateDir, Name: name, Rotate: cfg.RotateCert})
	if err != nil {
		return nil, err
	}
	if cert.Created {
		b.log.Info("made a new LAN certificate", "fingerprint", cert.Fingerprint(), "rotated", cfg.RotateCert)
	}
	b.id.Store(&identity{name: name, cert: cert})
	b.recoverUpdate()
	if b.store, err = store.Open(ctx, cfg.StateDir); err != nil {
		return nil, err
	}
	if err := b.openUpdater(); err != nil {
		return nil, err
	}
	if err := b.routes(); err != nil {
		return nil, err
	}
	if err := b.listen(); err != nil {
		return nil, err
	}
	return b, nil
}

func makeStateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("appliance: create state directory: %w", err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("appliance: state directory: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("appliance: state directory %s is not a directory", dir)
	}
	if st.Mode().Perm()&0o077 != 0 {
		// The directory holds the TLS key and the database.
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("appliance: state directory: %w", err)
		}
	}
	return nil
}

// boxName is, in this order: Config.Name (serve --name: the command line
// is the stronger statement, so a box started with --name comes back
// under that name even after the owner renamed it on the Settings page),
// the name the owner gave on the Settings page (kept in StateDir/box-name),
// or DefaultName.
func boxName(cfg Config) (string, error) {
	if cfg.Name != "" {
		return cfg.Name, CheckName(cfg.Name)
	}
	if name, err := storedName(cfg.StateDir); err != nil || name != "" {
		return name, err
	}
	cpuinfo, err := os.ReadFile(cfg.CPUInfo)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("appliance: read %s: %w", cfg.CPUInfo, err)
	}
	return DefaultName(cfg.StateDir, cpuinfo)
}

// routes makes the services and registers them on the box's mux.
func (b *Box) routes() error {
	var err error
	b.oauth, err = oauth.New(oauth.Config{
		Store:           b.store,
		Entry:           "lan",
		VerificationURI: b.verificationURI,
		Logger:          b.log.With("service", "oauth"),
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	// The owner's app profiles sit beside the database; a bad file is
	// logged and the shipped profiles are served.
	apps, err := profiles.Open(filepath.Join(b.cfg.StateDir, profiles.FileName), b.log.With("service", "profiles"))
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	b.control, err = control.New(b.life, control.Config{
		Store:  b.store,
		Phone:  b.cfg.Phone,
		Grants: b.oauth,
		Logger: b.log.With("service", "control"),
		// The tesseract program the image ships; where it is missing,
		// openlolo_find_text says what to install.
		OCR:      ocr.Tesseract{},
		Profiles: apps,
		// The LED blinks while an ask waits for the owner (presence.go).
		AskChanged: func() {
			if b.panel != nil {
				b.panel.poke()
			}
		},
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	if b.remote, err = b.newRemote(b.life); err != nil {
		return err
	}
	b.panel = b.newPanel()
	var upd owner.Updater
	if b.updater != nil {
		upd = updates{b}
	}
	b.owner, err = owner.New(owner.Config{
		Updater:       upd,
		Button:        b.panel.button(),
		Tailnet:       b.remote,
		Store:         b.store,
		OAuth:         b.oauth,
		Phone:         b.cfg.Phone,
		Control:       controller{b.control},
		Driver:        controller{b.control},
		Live:          owner.LiveOptions{Encode: mcp.EncodeJPEG},
		Asks:          b.control,
		Info:          b.Info,
		SetupCodeFile: b.cfg.SetupCodeFile,
		StateDir:      b.cfg.StateDir,
		Reset:         b.factoryReset,
		Identity:      identities{b},
		WiFi:          b.cfg.WiFi,
		Logger:        b.log.With("service", "owner"),
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	b.mcp, err = mcp.New(mcp.Config{
		Control: b.control,
		Phone:   b.cfg.Phone,
		Info:    b.mcpInfo,
		Logger:  b.log.With("service", "mcp"),
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	b.mux.HandleFunc("GET /healthz", b.healthz)
	b.oauth.Routes(b.mux)
	b.owner.Routes(b.mux)
	b.mcp.Routes(b.mux, b.oauth.Middleware)
	b.mcp.DiscoveryRoutes(b.mux, b.oauth.Issuer)
	return b.remote.mount()
}

// controller is the box page's view of the control service.
type controller struct{ s *control.Service }

var _ owner.Controller = controller{}

func (c controller) Pause(ctx context.Context, by string) error  { return c.s.OwnerPause(ctx, by) }
func (c controller) Resume(ctx context.Context, by string) error { return c.s.Resume(ctx, by) }

func (c controller) Lease() owner.LeaseView {
	l := c.s.Lease()
	return owner.LeaseView{Holder: l.Name, ClientID: l.Holder, Expires: l.Expires, Paused: l.Paused,
		PausedBy: l.PausedBy, ByOwner: l.PausedByOwner, PausedAt: l.PausedAt, Owner: l.Holder == control.OwnerID}
}

func (c controller) Recent(ctx context.Context, n int) ([]owner.Activity, error) {
	ops, err := c.s.Recent(ctx, n)
	if err != nil {
		return nil, err
	}
	acts := make([]owner.Activity, len(ops))
	for i, op := range ops {
		client := op.ClientName
		if client == "" {
			client = op.ClientID
		}
		acts[i] = owner.Activity{Time: op.Created, Client: client, Tool: op.Tool, Outcome: op.State, Code: op.Code,
			Summary: op.Summary, RunID: op.RunID, RunTitle: op.RunTitle,
			OperationID: op.ID, ThumbWidth: op.ThumbWidth, ThumbHeight: op.ThumbHeight}
	}
	done, err := c.s.RecentActions(ctx, n)
	if err != nil {
		return nil, err
	}
	for _, a := range done {
		if a.Tool != "" { // a read or a refused call
			acts = append(acts, owner.Activity{Time: a.At, Client: a.Actor, Tool: a.Tool, Outcome: a.Outcome, Code: a.Code,
				Summary: a.Detail, RunID: a.RunID, RunTitle: a.RunTitle})
			continue
		}
		outcome := "done"
		if a.Action == "login_failed" || a.Action == "claim_failed" {
			outcome = "failed"
		}
		acts = append(acts, owner.Activity{Time: a.At, Client: a.Actor, Action: a.Action, Detail: a.Detail, Outcome: outcome})
	}
	slices.SortStableFunc(acts, func(a, b owner.Activity) int { return b.Time.Compare(a.Time) })
	return acts[:min(n, len(acts))], nil
}

// verificationURI is the link a device-pairing request shows: on the
// plain-HTTP entry when there is one (a person can type it without the
// https://), else on the LAN entry the request came in on.
func (b *Box) verificationURI(r *http.Request, handle string) string {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	path := "/access?r=" + url.QueryEscape(handle)
	if b.cfg.HTTPAddr == "" {
		return "https://" + r.Host + path
	}
	_, port, _ := net.SplitHostPort(b.cfg.HTTPAddr)
	if b.redir != nil {
		_, port, _ = net.SplitHostPort(b.redir.Addr().String())
	}
	if port == "80" {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return "http://" + host + path
	}
	return "http://" + net.JoinHostPort(host, port) + path
}

// Info describes the box for the box page.
func (b *Box) Info() owner.BoxInfo {
	id := b.id.Load()
	return owner.BoxInfo{
		Name:             id.name,
		Version:          b.cfg.Version,
		Fingerprint:      id.cert.Fingerprint(),
		FingerprintColon: id.cert.FingerprintColon(),
		SPKIPin:          id.cert.SPKIPin(),
		Backend:          b.cfg.Phone.Info().Backend,
		CertPEM:          pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: id.cert.Leaf.Raw}),
	}
}

func (b *Box) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(struct {
		Status  string `json:"status"`
		Version string `json:"version"`
	}{"ok", b.cfg.Version})
}

// hosts are the names the LAN entry answers to.
func (b *Box) hosts() entry.Hosts {
	id := b.id.Load()
	names := append([]string{id.name + ".local", id.name}, id.cert.Leaf.DNSNames...)
	return entry.Hosts{Names: names, Any: entry.IsLoopback(b.cfg.LANAddr)}
}

// bodyLimit bounds request bodies other than /mcp's, which the MCP
// handler limits itself (64 KiB, answering 413), and the update upload,
// which the owner pages bound themselves: forms and the rest are far
// smaller than this.
const bodyLimit = 1 << 20

func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/mcp" && r.URL.Path != owner.UpdateUploadPath {
			r.Body = http.MaxBytesReader(w, r.Body, bodyLimit)
		}
		next.ServeHTTP(w, r)
	})
}

func (b *Box) listen() error {
	var err error
	b.lan, err = entry.Listen(entry.Config{
		Addr:    b.cfg.LANAddr,
		TLS:     b.serverTLS(),
		Handler: entry.SecurityHeaders(b.hostCheck(limitBody(b.mux))),
		Logger:  b.log.With("entry", "lan"),
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	if b.cfg.HTTPAddr == "" {
		return nil
	}
	_, port, _ := net.SplitHostPort(b.lan.Addr().String())
	// The names are read per request: a rename changes them.
	redirect := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hosts := b.hosts()
		hosts.Any = hosts.Any && entry.IsLoopback(b.cfg.HTTPAddr)
		entry.Redirect(hosts, port).ServeHTTP(w, r)
	})
	b.redir, err = entry.Listen(entry.Config{
		Addr:    b.cfg.HTTPAddr,
		Handler: b.httpFront(entry.SecurityHeaders(redirect)),
		Logger:  b.log.With("entry", "http"),
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	return nil
}

func (b *Box) httpFront(h http.Handler) http.Handler {
	if b.cfg.HTTPFront == nil {
		return h
	}
	return b.cfg.HTTPFront(h)
}

// Name is the box name.
func (b *Box) Name() string { return b.id.Load().name }

// Cert is the LAN certificate the box presents now.
func (b *Box) Cert() *boxtls.Cert { return b.id.Load().cert }

// Addr is the LAN entry's bound address.
func (b *Box) Addr() net.Addr { return b.lan.Addr() }

// HTTPAddr is the redirect entry's bound address, or nil without one.
func (b *Box) HTTPAddr() net.Addr {
	if b.redir == nil {
		return nil
	}
	return b.redir.Addr()
}

// LANURL is where a person on the LAN opens the box: the bound IP when the
// box listens on one address, else https://<name>.local; the port is left
// out when it is 443.
func (b *Box) LANURL() string {
	bound := b.lan.Addr().(*net.TCPAddr)
	host := b.Name() + ".local"
	if cfgHost, _, err := net.SplitHostPort(b.cfg.LANAddr); err == nil && cfgHost != "" {
		if ip := net.ParseIP(cfgHost); ip == nil || !ip.IsUnspecified() {
			host = bound.IP.String()
		}
	}
	if bound.Port == 443 {
		if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
			host = "[" + host + "]"
		}
		return "https://" + host + "/"
	}
	return "https://" + net.JoinHostPort(host, strconv.Itoa(bound.Port)) + "/"
}

// Run prints where to find the box, serves until ctx ends, then shuts
// down: in-flight requests get up to Config.ShutdownTimeout to finish, and
// the store closes. It returns nil after a shutdown that ctx asked for.
func (b *Box) Run(ctx context.Context) error {
	defer b.Close()
	if err := b.announce(ctx); err != nil {
		return err
	}
	servers := []*entry.Server{b.lan}
	if b.redir != nil {
		servers = append(servers, b.redir)
	}
	errc := make(chan error, len(servers))
	for _, s := range servers {
		go func() { errc <- s.Serve() }()
	}
	b.log.Info("box is up", "name", b.Name(), "url", b.LANURL(), "lan", b.lan.Addr().String(), "http", b.cfg.HTTPAddr, "version", b.cfg.Version)
	b.startMDNS(ctx)
	defer b.stopMDNS()
	b.remote.run(ctx) // never waits for the tailnet
	defer b.remote.shutdown()
	panelCtx, stopPanel := context.WithCancel(ctx)
	defer stopPanel()
	waitPanel := b.panel.run(panelCtx)
	b.confirmTrial(b.life)

	var runErr error
	running := len(servers)
	select {
	case <-ctx.Done():
		b.log.Info("shutting down", "cause", context.Cause(ctx))
	case runErr = <-errc:
		running--
		if runErr == nil {
			runErr = errors.New("appliance: an entry stopped serving")
		}
		b.log.Error("entry failed", "err", runErr)
	}
	b.stopMDNS() // withdraw before the entries stop answering
	stopPanel()
	waitPanel() // the LED goes off
	b.remote.shutdown()
	b.owner.EndStreams() // the live view's streams would hold Shutdown up
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.ShutdownTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() {
			if err := s.Shutdown(sctx); err != nil {
				b.log.Warn("shutdown cut requests short", "err", err)
			}
		})
	}
	wg.Wait()
	for ; running > 0; running-- {
		if err := <-errc; err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := b.Close(); err != nil && runErr == nil {
		runErr = err
	}
	b.log.Info("stopped")
	return runErr
}

// advertise announces the LAN entry over mDNS when Config.MDNS is set;
// the returned func withdraws the announcement and waits for the goodbye.
func (b *Box) advertise(ctx context.Context) (stop func()) {
	if !b.cfg.MDNS {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	id := b.id.Load()
	go func() {
		defer close(done)
		err := entry.AdvertiseMDNS(ctx, entry.MDNSConfig{
			Name:        id.name,
			Port:        b.lan.Addr().(*net.TCPAddr).Port,
			Version:     b.cfg.Version,
			Fingerprint: id.cert.Fingerprint(),
			Pin:         id.cert.SPKIPin(),
			Logger:      b.log.With("entry", "mdns"),
		})
		if err != nil {
			b.log.Warn("no mDNS advertisement", "err", err)
		}
	}()
	return func() { cancel(); <-done }
}

// announce prints the lines a person needs, in this order: the LAN URL,
// the certificate fingerprint, the SPKI pin and the setup code.
func (b *Box) announce(ctx context.Context) error {
	out := b.cfg.Out
	if out == nil {
		out = io.Discard
	}
	setup, err := b.setupLine(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "LAN URL:      %s\nFingerprint:  %s\nSPKI pin:     %s\nSetup code:   %s\n",
		b.LANURL(), b.Cert().Fingerprint(), b.Cert().SPKIPin(), setup)
	if err != nil {
		return fmt.Errorf("appliance: print start-up lines: %w", err)
	}
	return nil
}

// setupLine is the owner setup code, or what to say instead once the box
// is claimed.
func (b *Box) setupLine(ctx context.Context) (string, error) {
	code, claimed, err := b.owner.SetupCode(ctx)
	if err != nil {
		return "", fmt.Errorf("appliance: %w", err)
	}
	if claimed {
		return "none (the box is claimed; the owner logs in with the passphrase)", nil
	}
	return code, nil
}

// Close releases everything New acquired: listeners and the store. Run
// calls it; call it yourself only for a box that never ran. It is safe to
// call more than once.
func (b *Box) Close() error {
	b.closeOnce.Do(func() {
		var errs []error
		for _, s := range []*entry.Server{b.lan, b.redir} {
			if s != nil {
				if err := s.Close(); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if b.panel != nil {
			b.panel.close()
		}
		b.stopLife()
		if b.store != nil {
			if err := b.store.Close(); err != nil {
				errs = append(errs, fmt.Errorf("appliance: close store: %w", err))
			}
		}
		b.closeErr = errors.Join(errs...)
	})
	return b.closeErr
}

// StateDir is the box's state directory.
func (b *Box) StateDir() string { return b.cfg.StateDir }

// mcpInfo is what openlolo_status says about the box, the remote entry's
// state included.
func (b *Box) mcpInfo() mcp.BoxInfo {
	info := mcp.BoxInfo{Name: b.Name(), Version: b.cfg.Version}
	if tn := b.Remote(); tn != nil {
		st := tn.Status()
		info.Remote = &mcp.RemoteEntry{State: st.State, Reason: st.Reason, URL: tn.Issuer()}
	}
	return info
}
