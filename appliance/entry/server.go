package entry

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Config describes one entry server.
type Config struct {
	// Addr is the address to bind, e.g. ":443" or "127.0.0.1:0".
	Addr string
	// TLS, when not nil, makes the server speak HTTPS with it; nil serves
	// plain HTTP (the redirect entry).
	TLS *tls.Config
	// Handler answers the requests; it should already be wrapped with the
	// entry's middleware.
	Handler http.Handler
	// Limits caps the connections (zero: the defaults, see [Limits]).
	Limits Limits
	// Logger receives the server's own errors (at debug level: refused
	// handshakes are normal when clients check a pin); nil: discard.
	Logger *slog.Logger
	// ConnState, when set, is called on each change of a connection's
	// state, after the server's own accounting (as [http.Server]'s hook:
	// [http.StateActive] means the server has read a request's headers).
	// Tests wait on it instead of sleeping; nil: nothing is called.
	ConnState func(net.Conn, http.ConnState)
}

// Server is one bound entry.
type Server struct {
	ln  net.Listener
	srv *http.Server

	closeOnce sync.Once
	closeErr  error
}

// Listen binds cfg.Addr and returns the server, not yet serving; call
// [Server.Serve].
func Listen(cfg Config) (*Server, error) {
	if cfg.Handler == nil {
		return nil, errors.New("entry: listen: no handler")
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("entry: listen on %s: %w", cfg.Addr, err)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	srv := &http.Server{
		Handler:           cfg.Handler,
		TLSConfig:         cfg.TLS,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		// No WriteTimeout: watch long polls hold a response for up to a
		// minute; handlers bound their own work with contexts.
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}
	ln = limit(srv, ln, cfg.Limits)
	if hook := cfg.ConnState; hook != nil {
		count := srv.ConnState
		srv.ConnState = func(c net.Conn, s http.ConnState) {
			count(c, s)
			hook(c, s)
		}
	}
	if cfg.TLS != nil {
		ln = tls.NewListener(ln, cfg.TLS)
	}
	return &Server{ln: ln, srv: srv}, nil
}

// Addr is the bound address (with the real port when Addr ended in :0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve answers requests until Shutdown or Close; it then returns nil.
func (s *Server) Serve() error {
	err := s.srv.Serve(s.ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("entry: serve %s: %w", s.ln.Addr(), err)
}

// Shutdown stops accepting connections and waits for in-flight requests to
// finish or ctx to end, whichever comes first; then it closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	s.Close()
	if err != nil {
		return fmt.Errorf("entry: shutdown %s: %w", s.ln.Addr(), err)
	}
	return nil
}

// Close closes the listener and every connection at once. It is safe to
// call more than once and before Serve.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.closeErr = s.srv.Close()
		// Serve may never have run: close the listener ourselves.
		if err := s.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) && s.closeErr == nil {
			s.closeErr = err
		}
	})
	return s.closeErr
}

// IsLoopback reports whether addr (host:port) binds only loopback
// addresses ("127.0.0.1:8443", "[::1]:0", "localhost:8443"). An empty host
// binds every interface and is not loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
