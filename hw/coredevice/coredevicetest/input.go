package coredevicetest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/mediastream"
	"github.com/openlolo/openlolo/hw/coredevice/remotehid"
	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// KeyboardService is the surface id the fake assigns our keyboard (not
// the one asked for, so a client that ignores the reply is caught).
const KeyboardService uint64 = 0x100002042

// Input is the fake phone's iOS 27 input path: DisplayService streams
// synthetic RTP to the receiver a start names, and the universal HID and
// Indigo services record touches, keys and buttons only while a stream
// is live, as the real phone drops them otherwise. Set the fields before
// Phone.Start.
type Input struct {
	// Refuse makes startmediastream fail as iOS 26 does (CoreDeviceError
	// 9021 "Remote control requires iOS 27.0 or later").
	Refuse bool
	// Hang makes startmediastream never answer (a stuck media daemon).
	Hang bool
	// Interval is the media packet period (0: 20 ms).
	Interval time.Duration
	// StallWithoutRTCP stops a stream's encoder when no receiver report
	// came for this long (0: never).
	StallWithoutRTCP time.Duration

	mu       sync.Mutex
	sessions map[xpc.UUID]*fakeStream
	starts   []mediastream.Start
	stops    int
	rtcp     int
	keyboard bool
	touches  []remotehid.Touch
	keys     [][]uint8
	buttons  []remotehid.ButtonEvent
	dropped  int
}

type fakeStream struct {
	pc      net.PacketConn
	to      net.Addr
	stalled bool
	sent    uint64
	lastRR  time.Time
	stop    chan struct{}
	gone    <-chan struct{} // the tunnel went down
	wg      sync.WaitGroup
}

func (in *Input) interval() time.Duration {
	if in.Interval == 0 {
		return 20 * time.Millisecond
	}
	return in.Interval
}

// live: a stream runs, has sent video and is not stalled. Call with mu held.
func (in *Input) live() bool {
	for _, s := range in.sessions {
		if !s.stalled && s.sent > 0 {
			return true
		}
	}
	return false
}

// Stall stops every stream's video (an encoder that stalled) and returns
// how many media packets the streams sent in all.
func (in *Input) Stall() uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	var n uint64
	for _, s := range in.sessions {
		s.stalled = true
		n += s.sent
	}
	return n
}

// Starts returns the stream starts the fake accepted, in order.
func (in *Input) Starts() []mediastream.Start {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]mediastream.Start{}, in.starts...)
}

// Stops counts stream stops; Sessions the streams running now.
func (in *Input) Stops() int { in.mu.Lock(); defer in.mu.Unlock(); return in.stops }

// Sessions counts the streams running now.
func (in *Input) Sessions() int { in.mu.Lock(); defer in.mu.Unlock(); return len(in.sessions) }

// ReceiverReports counts the RTCP receiver reports the streams got.
func (in *Input) ReceiverReports() int { in.mu.Lock(); defer in.mu.Unlock(); return in.rtcp }

// Touches returns the touchscreen reports taken, in order.
func (in *Input) Touches() []remotehid.Touch {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]remotehid.Touch{}, in.touches...)
}

// Keys returns the keyboard reports taken (each the set of usages held).
func (in *Input) Keys() [][]uint8 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([][]uint8{}, in.keys...)
}

// Buttons returns the Indigo button events taken.
func (in *Input) Buttons() []remotehid.ButtonEvent {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]remotehid.ButtonEvent{}, in.buttons...)
}

// Dropped counts reports and events that came while no stream was live.
func (in *Input) Dropped() int { in.mu.Lock(); defer in.mu.Unlock(); return in.dropped }

const featurePfx = "com.apple.coredevice.feature."

func (in *Input) services(p *Phone, m map[string]Service) {
	m[mediastream.Service] = Service{
		Features: []string{featurePfx + mediastream.StartFeature, featurePfx + mediastream.StopFeature, featurePfx + mediastream.StatusFeature},
		Handle: func(ctx context.Context, req xpc.Dict) (xpc.Dict, error) {
			switch feature(req) {
			case featurePfx + mediastream.StartFeature:
				return in.start(p, req)
			case featurePfx + mediastream.StopFeature:
				id, ok := mediastream.ParseStop(req.Dict("CoreDevice.input"))
				if !ok {
					return invokeError("no client session id"), nil
				}
				in.stopSession(id)
				return nil, ErrDrop // the phone drops the channel while stopping
			case featurePfx + mediastream.StatusFeature:
				in.mu.Lock()
				sessions := []any{}
				for id := range in.sessions {
					sessions = append(sessions, xpc.Dict{{Key: "clientSessionID", Value: id}})
				}
				in.mu.Unlock()
				return out(xpc.Dict{{Key: "sessions", Value: sessions}}), nil
			}
			return invokeError("unknown feature " + feature(req)), nil
		},
	}
	m[remotehid.UniversalService] = Service{
		Features: []string{remotehid.UniversalFeature},
		Handle: func(ctx context.Context, req xpc.Dict) (xpc.Dict, error) {
			if remotehid.IsCreateService(req) {
				in.mu.Lock()
				in.keyboard = true
				in.mu.Unlock()
				return xpc.Dict{{Key: "serviceID", Value: KeyboardService}}, nil
			}
			surface, report, err := remotehid.ParseSend(req)
			if err != nil {
				return nil, err
			}
			in.mu.Lock()
			defer in.mu.Unlock()
			if !in.live() {
				in.dropped++
				return nil, nil
			}
			switch {
			case surface == remotehid.MainTouchscreen:
				t, err := remotehid.ParseTouchscreen(report)
				if err != nil {
					return nil, err
				}
				in.touches = append(in.touches, t)
			case surface == KeyboardService && in.keyboard:
				k, err := remotehid.ParseKeyboard(report)
				if err != nil {
					return nil, err
				}
				in.keys = append(in.keys, k)
			default:
				in.dropped++
			}
			return nil, nil
		},
	}
	m[remotehid.IndigoService] = Service{
		Features: []string{remotehid.ButtonFeature},
		Handle: func(ctx context.Context, req xpc.Dict) (xpc.Dict, error) {
			ev, err := remotehid.ParseButton(req)
			if err != nil {
				return nil, err
			}
			in.mu.Lock()
			defer in.mu.Unlock()
			if !in.live() {
				in.dropped++
				return nil, nil
			}
			in.buttons = append(in.buttons, ev)
			return nil, nil
		},
	}
}

// start checks a stream start as strictly as the phone does, binds the
// stream's UDP port and starts sending.
func (in *Input) start(p *Phone, req xpc.Dict) (xpc.Dict, error) {
	if req.String("CoreDevice.actionIdentifier") != "com.apple.coredevice.action."+mediastream.StartAction {
		return invokeError("Invalid Parameter (action)"), nil
	}
	if in.Hang {
		return nil, nil
	}
	if in.Refuse {
		return xpc.Dict{{Key: "CoreDevice.error", Value: xpc.Dict{
			{Key: "domain", Value: "com.apple.dt.CoreDeviceError"}, {Key: "code", Value: int64(9021)},
			{Key: "description", Value: "Remote control requires iOS 27.0 or later."},
		}}}, nil
	}
	st, err := mediastream.ParseStart(req.Dict("CoreDevice.input"))
	if err != nil {
		return invokeError("Invalid Parameter: " + err.Error()), nil
	}
	o, err := mediastream.ParseOffer(st.Offer)
	if err != nil || !bytes.Contains(o.MediaBlob, []byte("Viceroy 1.7.0")) {
		return invokeError(fmt.Sprintf("Invalid Parameter (offer: %v)", err)), nil
	}
	n := p.Network()
	if n == nil || st.Receiver.Addr() != n.Peer() || st.Sender != n.Local() {
		return invokeError(fmt.Sprintf("Invalid Parameter (receiver %v, sender %v)", st.Receiver, st.Sender)), nil
	}
	pc, err := n.ListenUDP(0)
	if err != nil {
		return nil, err
	}
	s := &fakeStream{pc: pc, to: n.UDPAddr(st.Receiver.Port()), stop: make(chan struct{}), gone: n.Done(), lastRR: time.Now()}
	in.mu.Lock()
	if in.sessions == nil {
		in.sessions = map[xpc.UUID]*fakeStream{}
	}
	in.sessions[st.ClientSessionID] = s
	in.starts = append(in.starts, st)
	in.mu.Unlock()
	s.wg.Add(2)
	go in.send(s)
	go in.feedback(s)
	a := mediastream.Answer{ClientSessionID: st.ClientSessionID, SourcePort: uint16(pc.LocalAddr().(*net.UDPAddr).Port),
		LocalSSRC: 0x0DE71CE0, RemoteSSRC: 0x0000B0C5, PayloadType: mediastream.HEVCPayloadType}
	return out(a.Output()), nil
}

// send streams synthetic RTP until stopped; a stall stops the video.
func (in *Input) send(s *fakeStream) {
	defer s.wg.Done()
	t := time.NewTicker(in.interval())
	defer t.Stop()
	var seq uint16
	for {
		in.mu.Lock()
		if in.StallWithoutRTCP > 0 && time.Since(s.lastRR) > in.StallWithoutRTCP {
			s.stalled = true
		}
		if !s.stalled {
			// An HEVC access unit of one NAL, marker set.
			if _, err := s.pc.WriteTo(mediastream.RTP(mediastream.HEVCPayloadType, true, seq, uint32(seq)*3000, 0x0DE71CE0, []byte{0x02, 0x01, 0xd0, 0x00}), s.to); err == nil {
				s.sent++
				seq++
			}
		}
		in.mu.Unlock()
		select {
		case <-s.stop:
			return
		case <-s.gone:
			return
		case <-t.C:
		}
	}
}

// feedback reads the host's receiver reports.
func (in *Input) feedback(s *fakeStream) {
	defer s.wg.Done()
	buf := make([]byte, 2048)
	for {
		n, _, err := s.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if r, err := mediastream.ParseReceiverReport(buf[:n]); err == nil && r.About == 0x0DE71CE0 {
			in.mu.Lock()
			in.rtcp++
			s.lastRR = time.Now()
			in.mu.Unlock()
		}
	}
}

func (in *Input) stopSession(id xpc.UUID) {
	in.mu.Lock()
	s := in.sessions[id]
	delete(in.sessions, id)
	if s != nil {
		in.stops++
	}
	in.mu.Unlock()
	if s != nil {
		close(s.stop)
		s.pc.Close()
		s.wg.Wait()
	}
}
