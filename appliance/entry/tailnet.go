package entry

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"tailscale.com/client/local"
	"tailscale.com/envknob"
	"tailscale.com/ipn"
	"tailscale.com/tsnet"
)

// Tailnet states reported by [Tailnet.Status].
const (
	TailnetStarting   = "starting"    // connecting to the coordination server
	TailnetNeedsLogin = "needs_login" // not logged in: login URL or auth key
	TailnetNeedsAuth  = "needs_approval"
	TailnetRunning    = "running"
	TailnetDown       = "down" // the node could not start or does not answer
	TailnetStopped    = "stopped"
)

// statusEvery is how often the node's state is read for Status.
const statusEvery = 2 * time.Second

// CertSource gives the certificate for a TLS handshake on the remote
// entry. In production it is tsnet's LocalClient (Let's Encrypt
// certificates for <name>.<tailnet>.ts.net); tests use a local CA.
type CertSource interface {
	GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error)
}

// TailnetConfig describes the remote entry.
type TailnetConfig struct {
	// Name is the node's host name on the tailnet (the box name).
	Name string
	// Dir keeps the node's state (keys, certificates); required unless
	// Store is set, and created with mode 0700.
	Dir string
	// Store replaces the state file in Dir (tests: mem.Store).
	Store ipn.StateStore
	// AuthKey joins the tailnet at the first start; ignored once the node
	// has state. It is never written anywhere by the box.
	AuthKey string
	// ControlURL is the coordination server; "" means Tailscale's.
	ControlURL string
	// Ephemeral registers the node as ephemeral (tests).
	Ephemeral bool
	// Handler answers the remote entry's requests (the box's routes with
	// their middleware). The Tailnet adds the Host check, the security
	// headers and the [Visitor] in the request context.
	Handler http.Handler
	// Funnel also publishes the entry on the public internet through
	// Tailscale Funnel, limited to [FunnelAllowed] paths.
	Funnel bool
	// Certs gives the TLS certificates; nil means tsnet's own.
	Certs CertSource
	// Logger receives what the entry does; nil discards. tsnet's verbose
	// backend log goes to it at debug level.
	Logger *slog.Logger
}

// TailnetStatus is the remote entry as the Status and Settings pages and
// openlolo_status show it.
type TailnetStatus struct {
	State   string   // one of the Tailnet* states
	Reason  string   // why it is not running, as a sentence; "" when fine
	DNSName string   // <name>.<tailnet>.ts.net, without the final dot
	IPs     []string // the node's tailnet addresses
	AuthURL string   // with needs_login: where a person logs the node in
	Funnel  bool     // published on the internet
}

// Tailnet is the remote entry: a tsnet node serving the box over HTTPS
// with the tailnet certificate. It never blocks the LAN entry: Run starts
// the node in the background and keeps trying while the control plane or
// the internet is away.
type Tailnet struct {
	cfg TailnetConfig
	log *slog.Logger

	mu     sync.Mutex
	srv    *tsnet.Server
	lc     *local.Client
	status TailnetStatus

	whois whoisCache
}

// NewTailnet checks cfg; nothing starts until Run.
func NewTailnet(cfg TailnetConfig) (*Tailnet, error) {
	if err := checkLabel(cfg.Name); err != nil {
		return nil, fmt.Errorf("entry: tailnet: %w", err)
	}
	if cfg.Dir == "" {
		return nil, errors.New("entry: tailnet: no state directory")
	}
	if cfg.Handler == nil {
		return nil, errors.New("entry: tailnet: no handler")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &Tailnet{cfg: cfg, log: log, status: TailnetStatus{State: TailnetStopped, Reason: "the remote entry is not running"}}
	t.whois.now = time.Now
	return t, nil
}

// Run starts the node, serves the remote entry and, with Funnel, the
// public paths, until ctx ends; then it closes the node and returns nil.
// A node that cannot start (state directory, a bad control URL) is retried
// every 30 seconds with the reason in Status.
func (t *Tailnet) Run(ctx context.Context) error {
	defer t.setStatus(TailnetStatus{State: TailnetStopped, Reason: "the remote entry is turned off"})
	for {
		err := t.runOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		t.log.Warn("tailnet: node stopped", "err", err)
		t.setStatus(TailnetStatus{State: TailnetDown, Reason: "The tailnet node could not start: " + err.Error() + ". The box retries every 30 seconds."})
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(30 * time.Second):
		}
	}
}

// runOnce runs one tsnet node until ctx ends or it fails.
func (t *Tailnet) runOnce(ctx context.Context) error {
	if t.cfg.Store == nil {
		if err := os.MkdirAll(t.cfg.Dir, 0o700); err != nil {
			return fmt.Errorf("entry: tailnet: state directory: %w", err)
		}
	}
	// The box never uploads logs to log.tailscale.com (tsnet would,
	// outside tests); this is TS_NO_LOGS_NO_SUPPORT=true.
	envknob.SetNoLogsNoSupport()
	srv := &tsnet.Server{
		Dir:        t.cfg.Dir,
		Store:      t.cfg.Store,
		Hostname:   t.cfg.Name,
		AuthKey:    t.cfg.AuthKey,
		ControlURL: t.cfg.ControlURL,
		Ephemeral:  t.cfg.Ephemeral,
		UserLogf:   t.logf(slog.LevelInfo),
		Logf:       t.logf(slog.LevelDebug),
	}
	defer srv.Close()
	t.setStatus(TailnetStatus{State: TailnetStarting, Reason: "connecting to the coordination server"})
	lc, err := srv.LocalClient() // starts the node
	if err != nil {
		return fmt.Errorf("entry: tailnet: start: %w", err)
	}
	t.mu.Lock()
	t.srv, t.lc = srv, lc
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.srv, t.lc = nil, nil
		t.mu.Unlock()
	}()
	var certs CertSource = lc
	if t.cfg.Certs != nil {
		certs = t.cfg.Certs
	}
	tlsConf := &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: certs.GetCertificate,
		NextProtos:     []string{"h2", "http/1.1"},
	}
	ln, err := srv.Listen("tcp", ":443")
	if err != nil {
		return fmt.Errorf("entry: tailnet: listen on :443: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { t.watch(ctx, srv, lc) })
	errc := make(chan error, 2)
	servers := []*http.Server{t.httpServer(t.handler(), tlsConf)}
	wg.Go(func() { errc <- serveTLS(servers[0], ln, tlsConf) })
	if t.cfg.Funnel {
		fs := t.httpServer(FunnelOnly(t.handler()), tlsConf)
		servers = append(servers, fs)
		wg.Go(func() { errc <- t.serveFunnel(ctx, srv, fs, tlsConf) })
	}
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer scancel()
	for _, s := range servers {
		s.Shutdown(sctx)
	}
	cancel()
	return err
}

// serveFunnel publishes the funnel paths once the node is up; funnel
// needs HTTPS and the funnel attribute on the tailnet.
func (t *Tailnet) serveFunnel(ctx context.Context, srv *tsnet.Server, hs *http.Server, conf *tls.Config) error {
	if _, err := srv.Up(ctx); err != nil {
		return nil // ctx ended
	}
	ln, err := srv.ListenFunnel("tcp", ":443", tsnet.FunnelOnly(), tsnet.FunnelTLSConfig(conf))
	if err != nil {
		t.log.Warn("tailnet: funnel refused", "err", err)
		t.mu.Lock()
		t.status.Reason = "Funnel is off: " + err.Error()
		t.mu.Unlock()
		<-ctx.Done()
		return nil
	}
	t.log.Info("tailnet: funnel on: /mcp, /.well-known/, /oauth/ and /token are public")
	err = hs.Serve(ln) // the listener already speaks TLS
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("entry: tailnet: funnel: %w", err)
}

func serveTLS(hs *http.Server, ln net.Listener, conf *tls.Config) error {
	err := hs.Serve(tls.NewListener(limit(hs, ln, Limits{}), conf))
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("entry: tailnet: serve: %w", err)
}

func (t *Tailnet) httpServer(h http.Handler, conf *tls.Config) *http.Server {
	return &http.Server{
		Handler:           h,
		TLSConfig:         conf,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(t.log.Handler(), slog.LevelDebug),
	}
}

// handler is the entry's middleware around cfg.Handler: security headers,
// the Host check against the node's current names, and the visitor.
func (t *Tailnet) handler() http.Handler {
	return SecurityHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := t.Status()
		names := []string{t.cfg.Name}
		if st.DNSName != "" {
			names = append(names, st.DNSName)
		}
		HostCheck(Hosts{Names: names}, t.withVisitor(t.cfg.Handler)).ServeHTTP(w, r)
	}))
}

// watch keeps Status current until ctx ends.
func (t *Tailnet) watch(ctx context.Context, srv *tsnet.Server, lc *local.Client) {
	var offSince time.Time // when the node lost its coordination server
	tick := time.NewTicker(statusEvery)
	defer tick.Stop()
	for {
		t.refresh(ctx, lc, controlLost(srv, &offSince))
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// controlLostAfter is how long the node may be out of its map poll before
// Status says the coordination server is unreachable (reconnects take a
// few seconds; Tailscale's own warning waits 8 minutes).
const controlLostAfter = 10 * time.Second

// controlLost reports whether the node has been out of contact with the
// coordination server for controlLostAfter; *since tracks when it lost it.
func controlLost(srv *tsnet.Server, since *time.Time) bool {
	if srv.Sys().HealthTracker.Get().GetInPollNetMap() {
		*since = time.Time{}
		return false
	}
	if since.IsZero() {
		*since = time.Now()
	}
	return time.Since(*since) >= controlLostAfter
}

// refresh reads the node's state into Status; lost says the coordination
// server has been unreachable for a while.
func (t *Tailnet) refresh(ctx context.Context, lc *local.Client, lost bool) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := lc.StatusWithoutPeers(ctx)
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return
	}
	var next TailnetStatus
	if err != nil {
		next.State, next.Reason = TailnetDown, "The tailnet node does not answer: "+err.Error()
		t.setStatus(next)
		return
	}
	for _, ip := range st.TailscaleIPs {
		next.IPs = append(next.IPs, ip.String())
	}
	if len(st.CertDomains) > 0 {
		next.DNSName = st.CertDomains[0]
	} else if st.Self != nil {
		next.DNSName = strings.TrimSuffix(st.Self.DNSName, ".")
	}
	health := strings.Join(st.Health, "; ")
	switch st.BackendState {
	case ipn.Running.String():
		next.State, next.Reason = TailnetRunning, health
		if lost {
			next.Reason = "The coordination server is unreachable: devices already known can still connect, " +
				"new devices and changes are not seen until it is back. The box keeps trying."
			if health != "" {
				next.Reason += " (" + health + ")"
			}
		}
	case ipn.NeedsLogin.String():
		next.State, next.AuthURL = TailnetNeedsLogin, st.AuthURL
		next.Reason = "The box is not logged in to a tailnet: open the login link on the Settings page, or paste an auth key there."
	case ipn.NeedsMachineAuth.String():
		next.State = TailnetNeedsAuth
		next.Reason = "A tailnet admin must approve this box in the Tailscale admin console (Machines)."
	case ipn.Stopped.String():
		next.State, next.Reason = TailnetStopped, "The tailnet node is stopped."
	default:
		next.State, next.Reason = TailnetStarting, "Connecting to the coordination server."
		if health != "" {
			next.Reason = "Connecting to the coordination server: " + health
		}
	}
	t.setStatus(next)
}

func (t *Tailnet) setStatus(s TailnetStatus) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s.Funnel = t.cfg.Funnel && s.State != TailnetStopped
	if t.status.State != s.State {
		t.log.Info("tailnet: state", "state", s.State, "reason", s.Reason, "name", s.DNSName)
	}
	t.status = s
}

// Status is the remote entry's current state.
func (t *Tailnet) Status() TailnetStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status
}

// Issuer is the remote entry's OAuth issuer, https://<DNSName>, or ""
// before the node knows its name.
func (t *Tailnet) Issuer() string {
	if n := t.Status().DNSName; n != "" {
		return "https://" + n
	}
	return ""
}

// client returns the running node's local client.
func (t *Tailnet) client() (*local.Client, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lc == nil {
		return nil, errors.New("entry: tailnet: the remote entry is not running; turn it on first")
	}
	return t.lc, nil
}

// Login joins the tailnet with an auth key a person pasted; the key is
// handed to the node and not kept.
func (t *Tailnet) Login(ctx context.Context, authKey string) error {
	authKey = strings.TrimSpace(authKey)
	if !strings.HasPrefix(authKey, "tskey-") {
		return errors.New("entry: tailnet: that is not a Tailscale auth key (they start with tskey-)")
	}
	lc, err := t.client()
	if err != nil {
		return err
	}
	if err := lc.Start(ctx, ipn.Options{AuthKey: authKey}); err != nil {
		return fmt.Errorf("entry: tailnet: log in with the auth key: %w", err)
	}
	if err := lc.StartLoginInteractive(ctx); err != nil {
		return fmt.Errorf("entry: tailnet: log in with the auth key: %w", err)
	}
	return nil
}

// Logout logs the node out of the tailnet; it then needs a new login.
func (t *Tailnet) Logout(ctx context.Context) error {
	lc, err := t.client()
	if err != nil {
		return err
	}
	if err := lc.Logout(ctx); err != nil {
		return fmt.Errorf("entry: tailnet: log out: %w", err)
	}
	t.whois.clear()
	return nil
}

// logf adapts tsnet's printf logger to slog.
func (t *Tailnet) logf(level slog.Level) func(string, ...any) {
	return func(format string, args ...any) {
		t.log.Log(context.Background(), level, "tsnet: "+strings.TrimSpace(fmt.Sprintf(format, args...)))
	}
}
