package waittest

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Requests follows an [http.Server]'s connections through its ConnState
// hook, so a test can wait until the server has read the headers of a
// request it sent (a shutdown with a request in flight), which the server
// tells no one else. The zero value is ready.
type Requests struct {
	mu   sync.Mutex
	read map[string]bool // remote addresses the server has read a request from
	wake chan struct{}   // closed and replaced when read grows
}

// ConnState is the hook to give the server: it notes each connection
// that goes active, that is whose request headers the server has read.
func (r *Requests) ConnState(c net.Conn, s http.ConnState) {
	if s != http.StateActive {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.read == nil {
		r.read = map[string]bool{}
	}
	r.read[c.RemoteAddr().String()] = true
	if r.wake != nil {
		close(r.wake)
		r.wake = nil
	}
}

// Read waits until the server has read a request's headers on the
// connection whose client end is local (the test's conn.LocalAddr()), or
// limit passes, and reports whether it had.
func (r *Requests) Read(limit time.Duration, local net.Addr) bool {
	deadline := time.After(limit)
	for {
		r.mu.Lock()
		if r.read[local.String()] {
			r.mu.Unlock()
			return true
		}
		if r.wake == nil {
			r.wake = make(chan struct{})
		}
		wake := r.wake
		r.mu.Unlock()
		select {
		case <-wake:
		case <-deadline:
			return false
		}
	}
}
