// Package usbmuxtest is a fake usbmuxd on a Unix socket, for tests of
// everything above usbmux: it lists devices, answers pair-record requests
// and hands Connect streams to the test's handler.
package usbmuxtest

import (
	"net"
	"path/filepath"
	"sync"
	"testing"

	"github.com/openlolo/openlolo/hw/coredevice/plist"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
)

// Server is a fake usbmuxd. Set its fields before Start; use the methods
// to change devices while it runs.
type Server struct {
	// Connect returns the handler for a stream a client opens to port on
	// device id, or nil to refuse it (result 3, as usbmuxd answers for a
	// port nobody listens on). The handler runs after the Result is sent.
	// A nil Connect refuses every Connect.
	// The stream is closed at cleanup, and the server waits for Connect
	// to return.
	Connect func(id uint64, port uint16) func(conn net.Conn)

	mu      sync.Mutex
	devices []usbmux.Device
	records map[string][]byte
	buid    string
	subs    map[chan plist.Dict]bool
	streams map[net.Conn]bool
	ln      net.Listener
	wg      sync.WaitGroup
	// Requests records every request's MessageType, in order.
	requests []string
}

// Start listens on a socket in t's temp dir, stops at cleanup, and
// returns the socket path.
func (s *Server) Start(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "usbmuxd")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.ln = ln
	if s.records == nil {
		s.records = map[string][]byte{}
	}
	if s.buid == "" {
		s.buid = "00000000-1111-2222-3333-444444444444"
	}
	s.subs = map[chan plist.Dict]bool{}
	s.streams = map[net.Conn]bool{}
	s.mu.Unlock()
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for c := range s.subs {
			close(c)
		}
		s.subs = nil
		for c := range s.streams {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return path
}

// Requests returns the MessageTypes received so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.requests...)
}

// SetBUID sets the BUID ReadBUID answers.
func (s *Server) SetBUID(b string) { s.mu.Lock(); s.buid = b; s.mu.Unlock() }

// SetPairRecord stores a pair record for udid.
func (s *Server) SetPairRecord(udid string, rec []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.records == nil {
		s.records = map[string][]byte{}
	}
	s.records[udid] = rec
}

// PairRecord returns the stored pair record for udid.
func (s *Server) PairRecord(udid string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.records[udid]
}

// Attach adds d and tells listeners.
func (s *Server) Attach(d usbmux.Device) {
	s.mu.Lock()
	s.devices = append(s.devices, d)
	s.broadcastLocked(attached(d))
	s.mu.Unlock()
}

// Detach removes the device with id and tells listeners.
func (s *Server) Detach(id uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, d := range s.devices {
		if d.ID == id {
			s.devices = append(s.devices[:i], s.devices[i+1:]...)
			s.broadcastLocked(plist.Dict{{Key: "MessageType", Value: "Detached"}, {Key: "DeviceID", Value: id}})
			return
		}
	}
}

func (s *Server) broadcastLocked(m plist.Dict) {
	for c := range s.subs {
		select {
		case c <- m:
		default:
		}
	}
}

func attached(d usbmux.Device) plist.Dict {
	return plist.Dict{
		{Key: "DeviceID", Value: d.ID},
		{Key: "MessageType", Value: "Attached"},
		{Key: "Properties", Value: plist.Dict{
			{Key: "ConnectionType", Value: d.ConnectionType},
			{Key: "DeviceID", Value: d.ID},
			{Key: "LocationID", Value: d.LocationID},
			{Key: "ProductID", Value: d.ProductID},
			{Key: "SerialNumber", Value: d.UDID},
		}},
	}
}

func (s *Server) serve() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handle(conn)
		}()
	}
}

func result(n uint64) plist.Dict {
	return plist.Dict{{Key: "MessageType", Value: "Result"}, {Key: "Number", Value: n}}
}

func (s *Server) handle(conn net.Conn) {
	closeConn := true
	defer func() {
		if closeConn {
			conn.Close()
		}
	}()
	for {
		tag, req, err := usbmux.ReadMessage(conn)
		if err != nil {
			return
		}
		typ := req.String("MessageType")
		s.mu.Lock()
		s.requests = append(s.requests, typ)
		s.mu.Unlock()
		switch typ {
		case "ListDevices":
			s.mu.Lock()
			list := []any{}
			for _, d := range s.devices {
				list = append(list, attached(d))
			}
			s.mu.Unlock()
			usbmux.WriteMessage(conn, tag, plist.Dict{{Key: "DeviceList", Value: list}})
		case "ReadBUID":
			s.mu.Lock()
			b := s.buid
			s.mu.Unlock()
			usbmux.WriteMessage(conn, tag, plist.Dict{{Key: "BUID", Value: b}})
		case "ReadPairRecord":
			rec := s.PairRecord(req.String("PairRecordID"))
			if rec == nil {
				// As Debian's usbmuxd 1.1.1 does: -ENOENT, sent as 2.
				usbmux.WriteMessage(conn, tag, result(2))
			} else {
				usbmux.WriteMessage(conn, tag, plist.Dict{{Key: "PairRecordData", Value: rec}})
			}
		case "SavePairRecord":
			s.SetPairRecord(req.String("PairRecordID"), req.Data("PairRecordData"))
			usbmux.WriteMessage(conn, tag, result(usbmux.ResultOK))
		case "Listen":
			c := make(chan plist.Dict, 16)
			s.mu.Lock()
			if s.subs == nil {
				s.mu.Unlock()
				return
			}
			for _, d := range s.devices {
				c <- attached(d)
			}
			s.subs[c] = true
			s.mu.Unlock()
			usbmux.WriteMessage(conn, tag, result(usbmux.ResultOK))
			go func() {
				// A closed client ends the subscription.
				var b [1]byte
				conn.Read(b[:])
				s.mu.Lock()
				if s.subs[c] {
					delete(s.subs, c)
					close(c)
				}
				s.mu.Unlock()
			}()
			for m := range c {
				if usbmux.WriteMessage(conn, 0, m) != nil {
					return
				}
			}
			return
		case "Connect":
			id, _ := req.Uint("DeviceID")
			wire, _ := req.Uint("PortNumber")
			port := uint16(wire>>8 | wire<<8)
			s.mu.Lock()
			found := false
			for _, d := range s.devices {
				found = found || d.ID == id
			}
			s.mu.Unlock()
			var serve func(net.Conn)
			if found && s.Connect != nil {
				serve = s.Connect(id, port)
			}
			switch {
			case !found:
				usbmux.WriteMessage(conn, tag, result(usbmux.ResultBadDevice))
			case serve == nil:
				usbmux.WriteMessage(conn, tag, result(usbmux.ResultConnRefused))
			default:
				usbmux.WriteMessage(conn, tag, result(usbmux.ResultOK))
				s.mu.Lock()
				s.streams[conn] = true
				s.mu.Unlock()
				closeConn = false
				serve(conn)
				return
			}
		default:
			usbmux.WriteMessage(conn, tag, result(usbmux.ResultBadCommand))
		}
	}
}
