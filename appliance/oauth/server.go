package oauth

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// Lifetimes and limits of the authorization server.
const (
	AccessTokenLife    = 15 * time.Minute
	DeviceCodeLife     = 10 * time.Minute
	DevicePollInterval = 5 * time.Second
	AuthCodeLife       = 5 * time.Minute
	// RefreshRetryWindow is how long after a refresh the refresh token it
	// used is accepted again, answered with the same new pair, while that
	// pair is unused: the answer may have been lost (Wi-Fi, power cut).
	RefreshRetryWindow  = 60 * time.Second
	MaxPendingRequests  = 5  // per box, all entries together
	DeviceRequestsLimit = 10 // accepted per minute, per box
	RegistrationsLimit  = 10 // accepted per minute, per box
	// UnapprovedRegistrationLife is how long a registered client that never
	// got a grant is kept.
	UnapprovedRegistrationLife = 10 * time.Minute
	// pollLeeway forgives a device poll that arrives this much early:
	// clients tick every interval, and network delays vary.
	pollLeeway = time.Second
	// lastUsedEvery is how often the bearer check writes a grant's last use.
	lastUsedEvery = time.Minute
	// maxFormBytes bounds the body of every OAuth endpoint.
	maxFormBytes = 64 << 10
)

// Config configures a Server. Store is required; every other field has a
// documented default. Fields are read once by New.
type Config struct {
	// Store holds clients, grants and tokens. All entries share it.
	Store *store.Store
	// Entry names the entry this Server answers on: "lan" (the default) or
	// "tailnet". Grants and tokens are bound to the entry that issued them.
	Entry string
	// Issuer returns the issuer URL for a request (no trailing slash).
	// nil: "https://" + r.Host.
	Issuer func(r *http.Request) string
	// VerificationURI returns the page where the owner approves the device
	// request named handle. nil: "http://" + the host without port +
	// "/access?r=" + handle.
	VerificationURI func(r *http.Request, handle string) string
	// Now is the clock. nil: time.Now.
	Now func() time.Time
	// Logger receives one line per decision; secrets are never logged.
	// nil: slog.Default().
	Logger *slog.Logger
}

// Server is the OAuth authorization server of one entry. Its methods are
// safe for concurrent use.
type Server struct {
	st       *store.Store
	entry    string
	issuerFn func(*http.Request) string
	verifyFn func(*http.Request, string) string
	now      func() time.Time
	log      *slog.Logger
	cache    bearerCache
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("oauth: new: Config.Store is nil")
	}
	s := &Server{
		st:       cfg.Store,
		entry:    cfg.Entry,
		issuerFn: cfg.Issuer,
		verifyFn: cfg.VerificationURI,
		now:      cfg.Now,
		log:      cfg.Logger,
	}
	if s.entry == "" {
		s.entry = "lan"
	}
	if s.entry != "lan" && s.entry != "tailnet" {
		return nil, fmt.Errorf("oauth: new: entry %q is neither \"lan\" nor \"tailnet\"", cfg.Entry)
	}
	if s.issuerFn == nil {
		s.issuerFn = func(r *http.Request) string { return "https://" + r.Host }
	}
	if s.verifyFn == nil {
		s.verifyFn = defaultVerificationURI
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.log = s.log.With("entry", s.entry)
	return s, nil
}

func defaultVerificationURI(r *http.Request, handle string) string {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
		if net.ParseIP(h) != nil && net.ParseIP(h).To4() == nil {
			host = "[" + h + "]"
		}
	}
	return "http://" + host + "/access?r=" + url.QueryEscape(handle)
}

// Routes registers the OAuth endpoints on mux.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.serveMetadata)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", s.serveResourceMetadata)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.serveResourceMetadata)
	// The endpoints a browser-based client calls answer CORS, preflight
	// included.
	for path, h := range map[string]http.HandlerFunc{
		"/oauth/device_authorization": s.serveDeviceAuthorization,
		"/token":                      s.serveToken,
		"/oauth/register":             s.serveRegister,
		"/oauth/revoke":               s.serveRevoke,
	} {
		mux.Handle("POST "+path, CORS(h))
		mux.Handle("OPTIONS "+path, CORS(h))
	}
}

// issuer is the issuer URL for r.
func (s *Server) issuer(r *http.Request) string { return s.issuerFn(r) }

// nowUTC is the injected clock, truncated to the millisecond the store keeps.
func (s *Server) nowUTC() time.Time { return s.now().UTC().Truncate(time.Millisecond) }
