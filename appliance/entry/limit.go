package entry

import (
	"container/list"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
)

// Connection caps of one listener. Each open connection costs 25–35 KiB
// (its goroutine, TLS and bufio buffers), so 256 of them stay under
// 9 MiB and a flood of idle connections cannot starve a 512 MB Pi Zero 2 W.
const (
	// DefaultMaxConns bounds the open connections of one listener.
	DefaultMaxConns = 256
	// DefaultMaxHandshakes bounds the connections that have not yet sent
	// their first request (TLS handshakes in flight and silent sockets).
	DefaultMaxHandshakes = 64
	// DefaultMaxTrusted bounds the connections marked by [Trust] (the
	// owner's pages): these are never shed for another client.
	DefaultMaxTrusted = 32
)

// Limits caps one listener's connections. The zero value takes the
// defaults above.
//
// The listener never stops accepting (a full accept queue would lock out
// the owner with everyone else): a connection beyond a cap sheds an older
// one instead, in this order: the longest idle keep-alive connection, then
// the oldest connection still in its handshake or silent, then the oldest
// connection in a request. Connections marked by [Trust] are shed only for
// another trusted one, so the owner's page and live view keep answering
// while clients flood the entry, and a new connection (the owner's next
// page) always gets in.
type Limits struct {
	MaxConns      int
	MaxHandshakes int
	MaxTrusted    int
}

func (l Limits) withDefaults() Limits {
	if l.MaxConns <= 0 {
		l.MaxConns = DefaultMaxConns
	}
	if l.MaxHandshakes <= 0 {
		l.MaxHandshakes = DefaultMaxHandshakes
	}
	if l.MaxTrusted <= 0 {
		l.MaxTrusted = DefaultMaxTrusted
	}
	return l
}

// connPhase is where a connection is in its life, as the limiter sees it.
type connPhase int

const (
	phaseNew     connPhase = iota // accepted, no request yet (handshake)
	phaseActive                   // reading or answering a request
	phaseIdle                     // keep-alive, between requests
	phaseTrusted                  // marked by Trust; never shed for others
	phaseCount
)

// limiter tracks one listener's connections in one list per phase, oldest
// first, and sheds the oldest of the right phase when a cap is reached.
type limiter struct {
	lim    Limits
	mu     sync.Mutex
	phases [phaseCount]list.List // of *limitedConn
	open   int
}

// limitListener wraps a net.Listener so every accepted connection is
// counted by a limiter.
type limitListener struct {
	net.Listener
	l *limiter
}

// limitedConn is one counted connection.
type limitedConn struct {
	net.Conn
	l       *limiter
	elem    *list.Element // nil once closed
	phase   connPhase
	trusted bool
}

// limit counts the connections hs accepts from ln under lim: it sets hs's
// ConnState and ConnContext hooks and returns the listener hs must serve
// (wrap it with TLS after, so the server still sees a *tls.Conn).
func limit(hs *http.Server, ln net.Listener, lim Limits) net.Listener {
	l := &limiter{lim: lim.withDefaults()}
	hs.ConnState = l.connState
	hs.ConnContext = connContext
	return &limitListener{Listener: ln, l: l}
}

// Accept returns the next connection; an older one may be closed to make
// room for it.
func (ll *limitListener) Accept() (net.Conn, error) {
	c, err := ll.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return ll.l.admit(c), nil
}

// admit counts c as a new connection and sheds what the caps require.
func (l *limiter) admit(c net.Conn) *limitedConn {
	lc := &limitedConn{Conn: c, l: l, phase: phaseNew}
	var shed []*limitedConn
	l.mu.Lock()
	if l.phases[phaseNew].Len() >= l.lim.MaxHandshakes {
		shed = append(shed, l.oldest(phaseNew))
	}
	for l.open-len(shed) >= l.lim.MaxConns {
		v := l.victim(shed)
		if v == nil {
			break
		}
		shed = append(shed, v)
	}
	for _, v := range shed {
		l.remove(v)
	}
	lc.elem = l.phases[phaseNew].PushBack(lc)
	l.open++
	l.mu.Unlock()
	for _, v := range shed {
		v.Conn.Close()
	}
	return lc
}

// victim is the connection to shed when every slot is taken: idle first,
// then new, then active; never a trusted one (they have their own cap).
// shed lists those already chosen. l.mu is held.
func (l *limiter) victim(shed []*limitedConn) *limitedConn {
	for _, p := range []connPhase{phaseIdle, phaseNew, phaseActive} {
		for e := l.phases[p].Front(); e != nil; e = e.Next() {
			c := e.Value.(*limitedConn)
			if !contains(shed, c) {
				return c
			}
		}
	}
	return nil
}

func contains(cs []*limitedConn, c *limitedConn) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

func (l *limiter) oldest(p connPhase) *limitedConn {
	return l.phases[p].Front().Value.(*limitedConn)
}

// remove forgets c; l.mu is held.
func (l *limiter) remove(c *limitedConn) {
	if c.elem == nil {
		return
	}
	l.phases[c.phase].Remove(c.elem)
	c.elem = nil
	l.open--
}

// move puts c at the back of phase p's list; l.mu is held.
func (l *limiter) move(c *limitedConn, p connPhase) {
	if c.elem == nil {
		return
	}
	if c.trusted {
		p = phaseTrusted
	}
	l.phases[c.phase].Remove(c.elem)
	c.phase = p
	c.elem = l.phases[p].PushBack(c)
}

// Close closes the connection and frees its slot.
func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	c.l.remove(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// connState is the http.Server's ConnState hook: it moves connections
// between phases.
func (l *limiter) connState(nc net.Conn, s http.ConnState) {
	c := asLimited(nc)
	if c == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateActive:
		l.move(c, phaseActive)
	case http.StateIdle:
		l.move(c, phaseIdle)
	case http.StateHijacked, http.StateClosed:
		l.remove(c)
	}
}

// trust marks c so only another trusted connection may shed it; beyond
// MaxTrusted the oldest trusted connection goes back to the common pool.
func (l *limiter) trust(c *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.trusted || c.elem == nil {
		return
	}
	if l.phases[phaseTrusted].Len() >= l.lim.MaxTrusted {
		old := l.oldest(phaseTrusted)
		old.trusted = false
		l.move(old, phaseIdle)
	}
	c.trusted = true
	l.move(c, phaseTrusted)
}

// asLimited finds the limitedConn under nc (which may be a *tls.Conn).
func asLimited(nc net.Conn) *limitedConn {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	c, _ := nc.(*limitedConn)
	return c
}

type connKey struct{}

// connContext is the http.Server's ConnContext hook: it lets [Trust] find
// the request's connection.
func connContext(ctx context.Context, nc net.Conn) context.Context {
	if c := asLimited(nc); c != nil {
		return context.WithValue(ctx, connKey{}, c)
	}
	return ctx
}

// Trust marks the connection that carried the request of ctx as the
// owner's: other clients' connections can no longer shed it. The owner
// pages call it once a session is checked. It does nothing for a request
// that did not come through a limited listener.
func Trust(ctx context.Context) {
	if c, ok := ctx.Value(connKey{}).(*limitedConn); ok {
		c.l.trust(c)
	}
}
