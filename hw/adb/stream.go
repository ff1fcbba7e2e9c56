package adb

import (
	"fmt"
	"io"
	"sync"
)

// Stream is one stream of a connection: bytes both ways to a service.
// Each direction has one message in flight: a write waits for the peer's
// OKAY before the next, and the peer's data is acknowledged only once
// Read has taken it, so a slow reader slows the phone rather than
// filling the box's memory.
type Stream struct {
	c       *Conn
	local   uint32
	service string
	opened  chan struct{} // closed when the peer answered OPEN (OKAY or CLSE)
	ack     chan struct{} // the peer's OKAY for our last WRTE
	done    chan struct{} // closed once the stream is closed, by either side

	mu      sync.Mutex
	cond    *sync.Cond
	remote  uint32 // the peer's id; 0 until it answered OPEN
	buf     []byte // data received and not yet read
	closed  bool   // no more data will come
	err     error  // why the stream ended, nil for a clean close
	sentCLS bool   // we sent CLSE
}

// Service is the service the stream was opened to.
func (s *Stream) Service() string { return s.service }

func (s *Stream) received(data []byte) {
	s.mu.Lock()
	s.buf = append(s.buf, data...)
	s.cond.Broadcast()
	s.mu.Unlock()
}

func (s *Stream) closedByPeer(err error) {
	s.mu.Lock()
	if !s.closed {
		s.closed, s.err = true, err
	}
	s.markDone()
	s.cond.Broadcast()
	s.mu.Unlock()
	select {
	case <-s.opened:
	default:
		close(s.opened)
	}
}

// Read reads the service's output; io.EOF once the peer closed the
// stream and everything it sent was read.
func (s *Stream) Read(p []byte) (int, error) {
	s.mu.Lock()
	for len(s.buf) == 0 && !s.closed {
		s.cond.Wait()
	}
	if len(s.buf) == 0 {
		err := s.err
		s.mu.Unlock()
		if err == nil {
			err = io.EOF
		}
		return 0, err
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	drained := len(s.buf) == 0 && !s.closed
	local, remote := s.local, s.remote
	s.mu.Unlock()
	if drained {
		// Acknowledge the message now that it is read: the peer may send
		// the next one.
		s.c.send(Message{Command: CmdOKAY, Arg0: local, Arg1: remote})
	}
	return n, nil
}

// Write sends p to the service in messages of the connection's size,
// each after the peer acknowledged the one before.
func (s *Stream) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		n := min(len(p), int(s.c.maxData))
		s.mu.Lock()
		closed, local, remote := s.closed || s.sentCLS, s.local, s.remote
		s.mu.Unlock()
		if closed {
			return written, fmt.Errorf("adb: write to %q: %w", s.service, ErrClosed)
		}
		if err := s.c.send(Message{Command: CmdWRTE, Arg0: local, Arg1: remote, Data: p[:n]}); err != nil {
			return written, fmt.Errorf("adb: write to %q: %w", s.service, err)
		}
		select {
		case <-s.ack:
		case <-s.c.done:
			return written, fmt.Errorf("adb: write to %q: %w", s.service, s.c.Err())
		case <-s.done:
			return written, fmt.Errorf("adb: write to %q: %w", s.service, ErrClosed)
		}
		written += n
		p = p[n:]
	}
	return written, nil
}

// markDone closes s.done once; s.mu is held.
func (s *Stream) markDone() {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
}

// Close closes the stream (CLSE to the peer, once). Reading after Close
// returns what was already received, then an error.
func (s *Stream) Close() error {
	s.mu.Lock()
	if s.sentCLS {
		s.mu.Unlock()
		return nil
	}
	s.sentCLS = true
	wasClosed := s.closed
	if !s.closed {
		s.closed, s.err = true, ErrClosed
	}
	s.markDone()
	local, remote := s.local, s.remote
	s.cond.Broadcast()
	s.mu.Unlock()
	s.c.forget(s)
	if wasClosed && s.err == nil {
		return nil // the peer closed it first: nothing to tell it
	}
	if remote == 0 && s.c.accept == nil {
		// Not opened yet: the peer will answer the OPEN; tell it we left.
		select {
		case <-s.opened:
		default:
			close(s.opened)
		}
	}
	return s.c.send(Message{Command: CmdCLSE, Arg0: local, Arg1: remote})
}
