package entry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"tailscale.com/client/local"
)

// whoisTTL bounds how long a WhoIs answer is reused: a node that changes
// hands (or a login that is unlinked) is seen within a minute.
const whoisTTL = time.Minute

// Visitor is who sent a request over the tailnet, as WhoIs says.
type Visitor struct {
	Login string // the user's login name, e.g. alice@example.com
	Name  string // display name
	Node  string // the sending machine's name
}

type visitorKey struct{}

// VisitorFrom returns the tailnet visitor of a request on the remote
// entry; false on other entries or when WhoIs did not know the sender.
func VisitorFrom(ctx context.Context) (Visitor, bool) {
	v, ok := ctx.Value(visitorKey{}).(Visitor)
	return v, ok && v.Login != ""
}

// ContextWithVisitor returns ctx carrying v (for tests of handlers that
// read VisitorFrom).
func ContextWithVisitor(ctx context.Context, v Visitor) context.Context {
	return context.WithValue(ctx, visitorKey{}, v)
}

// withVisitor asks WhoIs about each request's sender and puts the answer
// in the request context. A failed WhoIs is logged and the request goes on
// without a visitor: OAuth still guards everything but owner login.
func (t *Tailnet) withVisitor(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := t.WhoIs(r.Context(), r.RemoteAddr)
		if err != nil {
			t.log.Debug("tailnet: whois", "remote", r.RemoteAddr, "err", err)
		} else {
			r = r.WithContext(ContextWithVisitor(r.Context(), v))
		}
		next.ServeHTTP(w, r)
	})
}

// WhoIs returns the tailnet user behind remoteAddr (ip:port of a
// connection to the remote entry). Answers are reused for at most a minute.
func (t *Tailnet) WhoIs(ctx context.Context, remoteAddr string) (Visitor, error) {
	ip, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		return Visitor{}, fmt.Errorf("entry: tailnet: whois %q: %w", remoteAddr, err)
	}
	if v, ok := t.whois.get(ip); ok {
		return v, nil
	}
	lc, err := t.client()
	if err != nil {
		return Visitor{}, err
	}
	res, err := lc.WhoIs(ctx, remoteAddr)
	if errors.Is(err, local.ErrPeerNotFound) {
		return Visitor{}, fmt.Errorf("entry: tailnet: whois %s: not a node of this tailnet", remoteAddr)
	}
	if err != nil {
		return Visitor{}, fmt.Errorf("entry: tailnet: whois %s: %w", remoteAddr, err)
	}
	var v Visitor
	if res.UserProfile != nil {
		v.Login, v.Name = res.UserProfile.LoginName, res.UserProfile.DisplayName
	}
	if res.Node != nil {
		v.Node = res.Node.ComputedName
		if v.Node == "" {
			v.Node = res.Node.Name
		}
	}
	if v.Login == "" {
		return Visitor{}, fmt.Errorf("entry: tailnet: whois %s: the node has no user (a tagged device)", remoteAddr)
	}
	t.whois.put(ip, v)
	return v, nil
}

// whoisCache keeps WhoIs answers by sender IP for whoisTTL.
type whoisCache struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]whoisEntry
}

type whoisEntry struct {
	v       Visitor
	expires time.Time
}

func (c *whoisCache) get(ip string) (Visitor, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[ip]
	if !ok || !c.now().Before(e.expires) {
		delete(c.m, ip)
		return Visitor{}, false
	}
	return e.v, true
}

func (c *whoisCache) put(ip string, v Visitor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]whoisEntry{}
	}
	now := c.now()
	for k, e := range c.m { // keep it small: drop what expired
		if !now.Before(e.expires) {
			delete(c.m, k)
		}
	}
	c.m[ip] = whoisEntry{v: v, expires: now.Add(whoisTTL)}
}

func (c *whoisCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}
