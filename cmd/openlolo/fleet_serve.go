package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"tailscale.com/client/tailscale/apitype"
	"tailscale.com/envknob"
	"tailscale.com/ipn/ipnstate"
	"tailscale.com/tsnet"
	"tailscale.com/types/logger"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/sdk"
)

// fleetHostname is the fleet endpoint's default node name on the tailnet.
const fleetHostname = "openlolo-fleet"

// rpcCallerRefused is the JSON-RPC error code of a 403 to a caller the
// fleet endpoint does not serve (in the range JSON-RPC leaves to servers).
const rpcCallerRefused = -32001

// fleetServeHelp follows the flags in openlolo fleet serve -h.
const fleetServeHelp = `
fleet serve runs a node on your tailnet that serves one MCP endpoint
(streamable HTTP, stateless, JSON answers) with the phones of every box this
machine has paired with, as openlolo mcp --fleet does on stdio: openlolo_phones
lists them as box/phone, and each call goes to its box with this machine's
grant and pinned certificate. It prints the endpoint's URL; add it to an agent
on any machine of the tailnet, e.g.
  claude mcp add --transport http openlolo-fleet URL

HTTPS: when the tailnet has HTTPS certificates turned on (admin console, DNS:
MagicDNS and HTTPS), the endpoint is https://NAME.TAILNET.ts.net/mcp with the
tailnet's certificate. Otherwise it is plain HTTP on port 80,
http://NAME.TAILNET.ts.net/mcp: the tailnet's WireGuard tunnels already
encrypt and authenticate every packet between its nodes.

Callers: every request is identified by the tailnet (WhoIs: node, user login,
tags) and logged here, and passed nowhere else. The tailnet's ACLs decide who
can reach the node; --allow narrows it further, and anyone else gets 403.

It keeps no state of its own: the grants are read from this machine's token
store (the one openlolo pair fills), and the tailnet node's folder (--state,
or a temporary one) is all it writes. Several can run side by side, each with
its own --hostname.
`

// fleetCmd runs the fleet subcommands: openlolo fleet serve.
func fleetCmd(ctx context.Context, c *Context, args []string) error {
	if len(args) > 0 && args[0] == "serve" {
		return fleetServe(ctx, c, args[1:])
	}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprintf(c.Stderr, "usage: openlolo fleet serve [flags]\n%s", fleetServeHelp)
		return flag.ErrHelp
	}
	return usagef("give a subcommand: openlolo fleet serve (serves the phones of every paired box on the tailnet)")
}

// fleetServe is openlolo fleet serve: the fleet's MCP on a tsnet node.
func fleetServe(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "fleet serve", "[--hostname NAME] [--state DIR] [--authkey KEY] [--control-url URL] [--allow WHO,…]")
	usage := fs.Usage
	fs.Usage = func() { usage(); fmt.Fprint(c.Stderr, fleetServeHelp) }
	hostname := fs.String("hostname", fleetHostname, "the node's `name` on the tailnet")
	state := fs.String("state", "", "keep the tailnet node's keys in `DIR`, so it stays the same node across runs; empty: a temporary folder removed at exit, and an ephemeral node that leaves the tailnet when it stops")
	authKey := fs.String("authkey", c.Getenv("TS_AUTHKEY"), "a Tailscale auth `key` to join the tailnet (default $TS_AUTHKEY); without one, a login URL is logged. Not needed once --state holds a logged-in node")
	controlURL := fs.String("control-url", "", "the coordination server's `URL` (default Tailscale's; a Headscale server's here)")
	var allow allowList
	fs.Var(&allow, "allow", "serve only `WHO`: tailnet user logins (alice@example.com) and node tags (tag:agents), comma-separated or repeated (default: any node the tailnet's ACLs let reach this one)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("fleet serve takes no arguments, got %q: it serves every paired box (openlolo boxes lists them)", fs.Args())
	}
	log := c.logger()
	f, ids, err := openFleet(ctx, c)
	if err != nil {
		return err
	}
	dir, ephemeral := *state, false
	if dir == "" {
		if dir, err = os.MkdirTemp("", "openlolo-fleet-"); err != nil {
			return fmt.Errorf("make a folder for the tailnet node: %w", err)
		}
		defer os.RemoveAll(dir)
		ephemeral = true
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("the tailnet node's folder: %w", err)
	}
	// Nothing is uploaded to log.tailscale.com (TS_NO_LOGS_NO_SUPPORT).
	envknob.SetNoLogsNoSupport()
	node := &tsnet.Server{
		Dir: dir, Hostname: *hostname, AuthKey: *authKey, ControlURL: *controlURL, Ephemeral: ephemeral,
		UserLogf: slogf(log, slog.LevelInfo), Logf: slogf(log, slog.LevelDebug),
	}
	defer node.Close()
	log.Info("fleet serve: joining the tailnet", "hostname", *hostname, "state", dir, "ephemeral", ephemeral, "boxes", ids)
	return (&fleetServer{node: node, allow: allow, log: log, out: c.Stdout}).run(ctx, f)
}

// fleetServer is one fleet endpoint on its tailnet node.
type fleetServer struct {
	node  *tsnet.Server // not started yet; the caller closes it
	allow allowList
	// certs gives the HTTPS certificates; nil means the tailnet's (the
	// node's own LocalClient: Let's Encrypt for NAME.TAILNET.ts.net).
	certs func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	log   *slog.Logger
	out   io.Writer // the endpoint's URL is printed here
}

// run brings the node up and serves f's MCP on it until ctx ends.
func (s *fleetServer) run(ctx context.Context, f *sdk.Fleet) error {
	status, err := s.node.Up(ctx)
	if ctx.Err() != nil {
		return nil // stopped while joining (waiting for a login, say)
	}
	if err != nil {
		return fmt.Errorf("join the tailnet as %s: %w", s.node.Hostname, err)
	}
	lc, err := s.node.LocalClient()
	if err != nil {
		return fmt.Errorf("the tailnet node's local client: %w", err)
	}
	if s.certs == nil {
		s.certs = lc.GetCertificate
	}
	ln, endpoint, err := s.listen(status)
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           newFleetEndpoint(sdk.NewFleetRouter(f), lc, s.allow, s.log),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.log.Info("fleet serve: serving the phones of every paired box on the tailnet", "url", endpoint, "allow", s.allow.String())
	fmt.Fprintln(s.out, endpoint)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err = <-errc:
		return fmt.Errorf("serve on the tailnet: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	return nil
}

// listen listens on the node: HTTPS on :443 with the tailnet's
// certificate when the tailnet offers them (MagicDNS and HTTPS on), else
// plain HTTP on :80 (WireGuard encrypts between nodes). It returns the
// endpoint's URL.
func (s *fleetServer) listen(st *ipnstate.Status) (net.Listener, string, error) {
	if st.CurrentTailnet != nil && st.CurrentTailnet.MagicDNSEnabled && len(st.CertDomains) > 0 {
		ln, err := s.node.Listen("tcp", ":443")
		if err != nil {
			return nil, "", fmt.Errorf("listen for HTTPS on the tailnet: %w", err)
		}
		conf := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: s.certs, NextProtos: []string{"h2", "http/1.1"}}
		return tls.NewListener(ln, conf), "https://" + st.CertDomains[0] + "/mcp", nil
	}
	ln, err := s.node.Listen("tcp", ":80")
	if err != nil {
		return nil, "", fmt.Errorf("listen for HTTP on the tailnet: %w", err)
	}
	host := ""
	if st.Self != nil {
		host = strings.TrimSuffix(st.Self.DNSName, ".")
	}
	if host == "" && len(st.TailscaleIPs) > 0 {
		host = st.TailscaleIPs[0].String()
	}
	return ln, "http://" + host + "/mcp", nil
}

// slogf adapts log to tsnet's printf-style logger at level.
func slogf(log *slog.Logger, level slog.Level) logger.Logf {
	return func(format string, args ...any) {
		log.Log(context.Background(), level, "tailnet: "+strings.TrimSpace(fmt.Sprintf(format, args...)))
	}
}

// whoIs tells who sent a request on the tailnet; *local.Client (the
// node's own) implements it.
type whoIs interface {
	WhoIs(ctx context.Context, remoteAddr string) (*apitype.WhoIsResponse, error)
}

// fleetCaller is a request's sender as the tailnet names it.
type fleetCaller struct {
	Node  string   // the node's name (laptop.tail-scale.ts.net)
	Login string   // the user's login; a tagged node's is tagged-devices
	Tags  []string // the node's ACL tags
}

// callerOf reads WhoIs's answer.
func callerOf(w *apitype.WhoIsResponse) fleetCaller {
	var c fleetCaller
	if w.Node != nil {
		c.Node = strings.TrimSuffix(w.Node.Name, ".")
		if c.Node == "" {
			c.Node = w.Node.ComputedName
		}
		c.Tags = w.Node.Tags
	}
	if w.UserProfile != nil {
		c.Login = w.UserProfile.LoginName
	}
	return c
}

// allowList is --allow: tailnet user logins and node tags. Empty allows
// every caller.
type allowList []string

func (a *allowList) String() string { return strings.Join(*a, ",") }

// Set adds the comma-separated entries of v.
func (a *allowList) Set(v string) error {
	for e := range strings.SplitSeq(v, ",") {
		e = strings.TrimSpace(e)
		name, tag := strings.CutPrefix(e, "tag:")
		switch {
		case tag && name != "" && !strings.ContainsAny(name, " :@"):
		case !tag && strings.Contains(e, "@") && !strings.ContainsAny(e, " \t"):
		default:
			return fmt.Errorf("%q is neither a tailnet user's login (alice@example.com) nor a node tag (tag:agents)", e)
		}
		*a = append(*a, e)
	}
	return nil
}

// permits reports whether the list lets c call.
func (a allowList) permits(c fleetCaller) bool {
	if len(a) == 0 {
		return true
	}
	for _, e := range a {
		if strings.HasPrefix(e, "tag:") {
			if slices.Contains(c.Tags, e) {
				return true
			}
		} else if strings.EqualFold(e, c.Login) {
			return true
		}
	}
	return false
}

// fleetEndpoint is the fleet's HTTP endpoint: the caller check around
// the MCP server.
type fleetEndpoint struct {
	mcp   http.Handler
	who   whoIs
	allow allowList
	log   *slog.Logger
}

// newFleetEndpoint serves router's MCP at /mcp (the go-sdk streamable
// server, stateless, JSON answers, as the box's) to the callers allow
// lets in, as who names them.
func newFleetEndpoint(router *sdk.FleetRouter, who whoIs, allow allowList, log *slog.Logger) http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: sdk.FleetServerName, Title: "openlolo fleet", Version: version},
		&mcp.ServerOptions{Instructions: router.Instructions(), Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	s.AddReceivingMiddleware(routeFleet(router))
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: api.MaxBody, Logger: log})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return &fleetEndpoint{mcp: mux, who: who, allow: allow, log: log}
}

// ServeHTTP identifies the caller, logs the request and serves it, or
// answers 403 with a JSON-RPC error saying why.
func (e *fleetEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	res, err := e.who.WhoIs(r.Context(), r.RemoteAddr)
	if err != nil {
		e.log.Warn("fleet serve: unknown caller refused", "remote", r.RemoteAddr, "err", err)
		refuseCaller(w, r, fmt.Sprintf("openlolo fleet serve could not tell which tailnet node sent this request (%v); it serves only the nodes of its tailnet", err))
		return
	}
	c := callerOf(res)
	if !e.allow.permits(c) {
		e.log.Warn("fleet serve: caller refused", "node", c.Node, "user", c.Login, "tags", c.Tags, "allow", e.allow.String())
		refuseCaller(w, r, fmt.Sprintf("tailnet node %s (user %s%s) may not use this fleet endpoint: it serves only %s; ask whoever runs openlolo fleet serve to add you to --allow",
			c.Node, c.Login, tagsNote(c.Tags), strings.Join(e.allow, ", ")))
		return
	}
	e.log.Info("fleet serve: request", "node", c.Node, "user", c.Login, "tags", c.Tags, "method", r.Method, "path", r.URL.Path)
	e.mcp.ServeHTTP(w, r)
}

func tagsNote(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return ", tags " + strings.Join(tags, " ")
}

// refuseCaller answers r with 403 and a JSON-RPC error carrying msg, with
// the request's id so that MCP clients show it.
func refuseCaller(w http.ResponseWriter, r *http.Request, msg string) {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if json.NewDecoder(io.LimitReader(r.Body, api.MaxBody)).Decode(&req) != nil || len(req.ID) == 0 {
		req.ID = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	json.NewEncoder(w).Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", req.ID, jsonrpc.Error{Code: rpcCallerRefused, Message: msg}})
}

// routeFleet answers tools/list and tools/call with router; the go-sdk
// server answers the rest (initialize, ping, notifications).
func routeFleet(router *sdk.FleetRouter) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			var res mcp.Result
			switch method {
			case "tools/list":
				res = &mcp.ListToolsResult{}
			case "tools/call":
				res = &mcp.CallToolResult{}
			default:
				return next(ctx, method, req)
			}
			params, err := json.Marshal(req.GetParams())
			if err != nil {
				return nil, fmt.Errorf("fleet serve: encode %s's params: %w", method, err)
			}
			raw, err := router.Handle(ctx, method, params)
			if pe := (*sdk.ProtocolError)(nil); errors.As(err, &pe) {
				return nil, &jsonrpc.Error{Code: int64(pe.Code), Message: pe.Message}
			}
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(raw, res); err != nil {
				return nil, fmt.Errorf("fleet serve: decode the %s answer: %w", method, err)
			}
			return res, nil
		}
	}
}
