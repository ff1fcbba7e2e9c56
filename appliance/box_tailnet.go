package appliance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"

	"github.com/openlolo/openlolo/appliance/entry"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/store"
)

// remote is the box's remote entry: its own OAuth issuer and mux over the
// same services, and the tsnet node that serves them while it is on. It
// implements owner.Tailnet for the Settings page.
type remote struct {
	b     *Box
	oauth *oauth.Server
	mux   *http.ServeMux
	tn    *entry.Tailnet

	mu      sync.Mutex
	enabled bool
	runCtx  context.Context // Box.Run's; nil while the box is not running
	stop    context.CancelFunc
	done    chan struct{} // closed when the running node stopped
}

var _ owner.Tailnet = (*remote)(nil)

// newRemote makes the remote entry's issuer and node (not started).
func (b *Box) newRemote(ctx context.Context) (*remote, error) {
	r := &remote{b: b, mux: http.NewServeMux()}
	var err error
	r.tn, err = entry.NewTailnet(entry.TailnetConfig{
		Name:       b.Name(),
		Dir:        filepath.Join(b.cfg.StateDir, "tailscale"),
		AuthKey:    b.cfg.TSAuthKey,
		ControlURL: b.cfg.TailnetControlURL,
		Handler:    limitBody(r.mux),
		Funnel:     b.cfg.Funnel,
		Certs:      b.cfg.TailnetCerts,
		Logger:     b.log.With("entry", "tailnet"),
	})
	if err != nil {
		return nil, fmt.Errorf("appliance: %w", err)
	}
	r.oauth, err = oauth.New(oauth.Config{
		Store:  b.store,
		Entry:  "tailnet",
		Issuer: r.issuer,
		VerificationURI: func(req *http.Request, handle string) string {
			return "https://" + req.Host + "/access?r=" + url.QueryEscape(handle)
		},
		Logger: b.log.With("service", "oauth", "entry", "tailnet"),
	})
	if err != nil {
		return nil, fmt.Errorf("appliance: %w", err)
	}
	r.enabled = b.cfg.Tailnet
	err = b.store.View(ctx, func(tx *store.Tx) error {
		on, set, err := store.TailnetEnabled.Lookup(tx)
		if set {
			r.enabled = on
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("appliance: read the remote entry setting: %w", err)
	}
	return r, nil
}

// info is the box as the remote entry's pages show it: without the LAN
// certificate to download, since this entry's certificate is publicly
// trusted and is not that one.
func (r *remote) info() owner.BoxInfo {
	i := r.b.Info()
	i.CertPEM = nil
	return i
}

// issuer is https://<name>.<tailnet>.ts.net once the node knows its name.
func (r *remote) issuer(req *http.Request) string {
	if iss := r.tn.Issuer(); iss != "" {
		return iss
	}
	return "https://" + req.Host
}

// mount registers the services on the remote mux; the box page there
// recognises the owner's linked tailnet login.
func (r *remote) mount() error {
	b := r.b
	pages, err := owner.New(owner.Config{
		Store:    b.store,
		OAuth:    r.oauth,
		Phone:    b.cfg.Phone,
		PhoneID:  b.control.ID(),
		Phones:   boxPhones(b.control),
		Control:  boxController(b.control),
		Info:     r.info,
		Tailnet:  r,
		StateDir: b.cfg.StateDir,
		Visitor: func(req *http.Request) (string, bool) {
			v, ok := entry.VisitorFrom(req.Context())
			return v.Login, ok
		},
		Trust:    entry.Trust,
		HashSlot: b.hashes,
		Logger:   b.log.With("service", "owner", "entry", "tailnet"),
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	r.mux.HandleFunc("GET /healthz", b.healthz)
	r.oauth.Routes(r.mux)
	pages.Routes(r.mux)
	b.mcp.Routes(r.mux, r.oauth.Middleware)
	b.mcp.DiscoveryRoutes(r.mux, r.oauth.Issuer)
	return nil
}

// run starts the node if the remote entry is on; Box.Run calls it with
// its context, and the node stops when that context ends or on shutdown.
func (r *remote) run(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runCtx = ctx
	if r.enabled {
		r.startLocked()
	}
}

func (r *remote) startLocked() {
	if r.stop != nil || r.runCtx == nil {
		return
	}
	ctx, cancel := context.WithCancel(r.runCtx)
	done := make(chan struct{})
	r.stop, r.done = cancel, done
	go func() {
		defer close(done)
		if err := r.tn.Run(ctx); err != nil {
			r.b.log.Error("remote entry stopped", "err", err)
		}
	}()
}

// stopLocked stops the node and waits for it; r.mu is held, which the
// node's goroutine never takes.
func (r *remote) stopLocked() {
	if r.stop == nil {
		return
	}
	r.stop()
	<-r.done
	r.stop, r.done = nil, nil
}

// shutdown stops the node for good (Box.Run's end).
func (r *remote) shutdown() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopLocked()
	r.runCtx = nil
}

// TailnetStatus implements owner.Tailnet.
func (r *remote) TailnetStatus() owner.TailnetView {
	r.mu.Lock()
	on := r.enabled
	r.mu.Unlock()
	if !on {
		return owner.TailnetView{State: "off", Reason: "The remote entry is turned off."}
	}
	st := r.tn.Status()
	return owner.TailnetView{Enabled: true, State: st.State, Reason: st.Reason, DNSName: st.DNSName,
		IPs: st.IPs, AuthURL: st.AuthURL, Funnel: st.Funnel}
}

// SetTailnet implements owner.Tailnet: it remembers the choice and starts
// or stops the node at once.
func (r *remote) SetTailnet(ctx context.Context, on bool) error {
	if err := r.b.store.Update(ctx, func(tx *store.Tx) error { return store.TailnetEnabled.Set(tx, on) }); err != nil {
		return fmt.Errorf("appliance: save the remote entry setting: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.enabled = on
	if on {
		r.startLocked()
	} else {
		r.stopLocked()
	}
	return nil
}

// TailnetLogin implements owner.Tailnet.
func (r *remote) TailnetLogin(ctx context.Context, authKey string) error {
	return r.tn.Login(ctx, authKey)
}

// TailnetLogout implements owner.Tailnet.
func (r *remote) TailnetLogout(ctx context.Context) error {
	return r.tn.Logout(ctx)
}

// Remote is the box's remote entry (its state, issuer and WhoIs).
func (b *Box) Remote() *entry.Tailnet { return b.remote.tn }
