package entry

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeConn is a connection that records whether the limiter closed it.
type fakeConn struct {
	net.Conn
	name   string
	closed bool
}

func (c *fakeConn) Close() error { c.closed = true; return nil }

// TestLimiterSheds drives the limiter's bookkeeping step by step and checks
// which connections a cap sheds: idle ones first, then those in their
// handshake, then those in a request; never a trusted one.
func TestLimiterSheds(t *testing.T) {
	t.Parallel()
	type step struct {
		admit string         // a new connection of this name
		name  string         // else: an existing connection ...
		state http.ConnState // ... moves to this state
		trust bool           // ... or is trusted
	}
	tests := []struct {
		name   string
		lim    Limits
		steps  []step
		closed []string
	}{{
		name:   "under the caps nothing is shed",
		lim:    Limits{MaxConns: 3, MaxHandshakes: 3},
		steps:  []step{{admit: "a"}, {admit: "b"}, {admit: "c"}},
		closed: nil,
	}, {
		name:   "handshakes beyond their cap shed the oldest handshake",
		lim:    Limits{MaxConns: 10, MaxHandshakes: 2},
		steps:  []step{{admit: "a"}, {admit: "b"}, {name: "a", state: http.StateActive}, {admit: "c"}, {admit: "d"}},
		closed: []string{"b"},
	}, {
		name: "a full listener sheds the longest idle first",
		lim:  Limits{MaxConns: 3, MaxHandshakes: 3},
		steps: []step{{admit: "a"}, {admit: "b"}, {admit: "c"},
			{name: "a", state: http.StateActive}, {name: "c", state: http.StateActive}, {name: "c", state: http.StateIdle},
			{name: "a", state: http.StateIdle}, {admit: "d"}},
		closed: []string{"c"},
	}, {
		name: "then the oldest handshake",
		lim:  Limits{MaxConns: 2, MaxHandshakes: 2},
		steps: []step{{admit: "a"}, {admit: "b"}, {name: "a", state: http.StateActive},
			{admit: "c"}},
		closed: []string{"b"},
	}, {
		name: "then the oldest request",
		lim:  Limits{MaxConns: 2, MaxHandshakes: 2},
		steps: []step{{admit: "a"}, {admit: "b"}, {name: "a", state: http.StateActive},
			{name: "b", state: http.StateActive}, {admit: "c"}},
		closed: []string{"a"},
	}, {
		name: "a trusted connection is never shed for another client",
		lim:  Limits{MaxConns: 2, MaxHandshakes: 2},
		steps: []step{{admit: "owner"}, {name: "owner", state: http.StateActive}, {name: "owner", trust: true},
			{name: "owner", state: http.StateIdle}, {admit: "b"}, {admit: "c"}, {admit: "d"}},
		closed: []string{"b", "c"},
	}, {
		name: "beyond the trusted cap the oldest trusted goes back to the pool",
		lim:  Limits{MaxConns: 2, MaxHandshakes: 2, MaxTrusted: 1},
		steps: []step{{admit: "o1"}, {name: "o1", trust: true}, {admit: "o2"}, {name: "o2", trust: true},
			{admit: "x"}},
		closed: []string{"o1"},
	}, {
		name: "closed connections free their slot",
		lim:  Limits{MaxConns: 2, MaxHandshakes: 2},
		steps: []step{{admit: "a"}, {admit: "b"}, {name: "a", state: http.StateClosed},
			{name: "b", state: http.StateHijacked}, {admit: "c"}, {admit: "d"}},
		closed: nil,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := &limiter{lim: tt.lim.withDefaults()}
			conns := map[string]*limitedConn{}
			raw := map[string]*fakeConn{}
			var order []string
			for _, s := range tt.steps {
				if s.admit != "" {
					fc := &fakeConn{name: s.admit}
					raw[s.admit] = fc
					order = append(order, s.admit)
					conns[s.admit] = l.admit(fc)
					continue
				}
				if s.trust {
					l.trust(conns[s.name])
					continue
				}
				l.connState(conns[s.name], s.state)
			}
			var closed []string
			for _, name := range order {
				if raw[name].closed {
					closed = append(closed, name)
				}
			}
			// The order of shedding within one step is not part of the
			// contract; compare as sets.
			slices.Sort(closed)
			want := slices.Clone(tt.closed)
			slices.Sort(want)
			if !slices.Equal(closed, want) {
				t.Errorf("closed %v, want %v", closed, want)
			}
			open := 0
			for p := range l.phases {
				open += l.phases[p].Len()
			}
			if open != l.open || open > l.lim.MaxConns {
				t.Errorf("%d connections listed, %d counted, cap %d", open, l.open, l.lim.MaxConns)
			}
		})
	}
}

// pipeListener is an in-memory listener, so the server under test runs
// inside a synctest bubble.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (p *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.done:
		return nil, net.ErrClosed
	}
}

func (p *pipeListener) Close() error { p.once.Do(func() { close(p.done) }); return nil }

func (p *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 443} }

func (p *pipeListener) dial() net.Conn {
	client, server := net.Pipe()
	p.conns <- server
	return client
}

// get sends one HTTP/1.1 request on c and reads the answer's body.
func get(c net.Conn, path string) (string, error) {
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: box\r\n\r\n", path); err != nil {
		return "", err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// isClosed reports whether the server closed c.
func isClosed(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(time.Millisecond))
	_, err := c.Read(make([]byte, 1))
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe)
}

// TestLimitFloodKeepsOwner floods a limited server with silent
// connections: it holds at most its cap, and the owner's trusted
// keep-alive connection and a new connection both still get answers.
func TestLimitFloodKeepsOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mux := http.NewServeMux()
		mux.HandleFunc("/owner", func(w http.ResponseWriter, r *http.Request) {
			Trust(r.Context())
			io.WriteString(w, "owner")
		})
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "page") })
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: time.Minute}
		pl := newPipeListener()
		lim := Limits{MaxConns: 4, MaxHandshakes: 4}
		ln := limit(hs, pl, lim)
		go hs.Serve(ln)
		defer func() {
			hs.Close()
			synctest.Wait()
		}()

		owner := pl.dial()
		defer owner.Close()
		if body, err := get(owner, "/owner"); err != nil || body != "owner" {
			t.Fatalf("owner page before the flood: %q, %v", body, err)
		}
		// A keep-alive client between requests: the first to go.
		idle := pl.dial()
		defer idle.Close()
		if _, err := get(idle, "/"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()

		var flood []net.Conn
		for range 100 {
			flood = append(flood, pl.dial())
		}
		synctest.Wait()
		open := 0
		for _, c := range flood {
			if !isClosed(c) {
				open++
			}
			defer c.Close()
		}
		if open > lim.MaxHandshakes {
			t.Errorf("%d silent connections still open, want at most %d", open, lim.MaxHandshakes)
		}
		if !isClosed(idle) {
			t.Error("the idle keep-alive connection was kept while silent ones were shed")
		}
		if body, err := get(owner, "/owner"); err != nil || body != "owner" {
			t.Errorf("owner's connection during the flood: %q, %v", body, err)
		}
		fresh := pl.dial()
		defer fresh.Close()
		if body, err := get(fresh, "/"); err != nil || body != "page" {
			t.Errorf("a new connection during the flood: %q, %v", body, err)
		}
	})
}

// TestListenLimitsConnections checks that [Listen] puts the limiter on a
// real TCP listener: a flood of silent connections beyond the handshake
// cap is shed and a request still answers.
func TestListenLimitsConnections(t *testing.T) {
	t.Parallel()
	s, err := Listen(Config{
		Addr:    "127.0.0.1:0",
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }),
		Limits:  Limits{MaxConns: 16, MaxHandshakes: 4},
	})
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var d net.Dialer
	var flood []net.Conn
	for range 40 {
		c, err := d.DialContext(ctx, "tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		flood = append(flood, c)
	}
	// The newest 4 are kept; the server closes the others as it accepts.
	shed := 0
	for _, c := range flood[:len(flood)-4] {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); errors.Is(err, io.EOF) {
			shed++
		}
	}
	if shed != len(flood)-4 {
		t.Errorf("%d of %d silent connections shed, want all", shed, len(flood)-4)
	}
	c, err := d.DialContext(ctx, "tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if body, err := get(c, "/"); err != nil || body != "ok" {
		t.Errorf("request during the flood: %q, %v", body, err)
	}
}
