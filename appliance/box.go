package appliance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/entry"
	"github.com/openlolo/openlolo/appliance/mcp"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/panel"
	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/appliance/update"
	"github.com/openlolo/openlolo/phone"
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
	// JPEG, when set, encodes the box's JPEG pictures (a hardware
	// encoder, hw/capture's JPEGEncoder); nil: software. The box uses it
	// but does not close it.
	JPEG picture.JPEGEncoder
	// Phones, when set, are all the box's phones (serve --sims N); Phone
	// is then the first of them (the owner's page and the LED follow it).
	// The box uses them but does not close them.
	Phones []control.Attached
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
	// ConnState, when set, follows the LAN entry's connections (see
	// entry.Config.ConnState): tests wait on it until the box has read a
	// request's headers. nil: nothing is called.
	ConnState func(net.Conn, http.ConnState)
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
	hashes  owner.HashSlot // one passphrase hash at a time, LAN and tailnet pages alike
	mcp     *mcp.Handler
	remote  *remote         // the remote (tailnet) entry
	panel   *controls       // the button and the LED
	updater *update.Updater // nil without Config.Update
	trial   bool            // this boot is a new version's trial (update.Recover)
	steps   *startupSteps   // New's and Run's start-up timings (debug log)

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
	if len(cfg.Phones) > 0 {
		cfg.Phone = cfg.Phones[0].Phone
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
	b.steps = newStartupSteps(b.log, nil)
	steps := b.steps
	if err := makeStateDir(cfg.StateDir); err != nil {
		return nil, err
	}
	name, err := boxName(cfg)
	if err != nil {
		return nil, err
	}
	steps.done("name")
	cert, err := boxtls.Load(boxtls.Options{Dir: cfg.StateDir, Name: name, Rotate: cfg.RotateCert})
	if err != nil {
		return nil, err
	}
	steps.done("certificate")
	if cert.Created {
		b.log.Info("made a new LAN certificate", "fingerprint", cert.Fingerprint(), "rotated", cfg.RotateCert)
	}
	b.id.Store(&identity{name: name, cert: cert})
	b.recoverUpdate()
	if b.store, err = store.Open(ctx, cfg.StateDir); err != nil {
		return nil, err
	}
	steps.done("store")
	if err := b.openUpdater(); err != nil {
		return nil, err
	}
	if err := b.routes(steps); err != nil {
		return nil, err
	}
	if err := b.listen(); err != nil {
		return nil, err
	}
	steps.done("listen")
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
