package coredevice

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/mediastream"
	"github.com/openlolo/openlolo/hw/coredevice/xpc"
	"github.com/openlolo/openlolo/phone"
)

// streamTimings are the media stream's clocks (see Options).
type streamTimings struct {
	stale     time.Duration // no media for this long: the stream is stale
	keepalive time.Duration // RTCP receiver-report period
	firstWait time.Duration // how long a new stream may take to send
	start     time.Duration // how long the phone may take to answer a start
	settle    time.Duration // after the first media, before input
}

// stream is one DisplayService media stream: the UDP receiver on our
// tunnel address, the phone's answer and the keep-alive. It exists only
// to hold the phone's input gate open; the video is counted and dropped.
type stream struct {
	c      *Conn
	pc     net.PacketConn
	id     xpc.UUID
	answer mediastream.Answer
	now    func() time.Time

	last    atomic.Int64  // now() in ns at the newest media packet
	packets atomic.Uint64 // media packets received
	seq     atomic.Uint32 // extended highest sequence number
	ssrc    atomic.Uint32 // the phone's SSRC as seen on the wire
	first   chan struct{} // closed at the first media packet
	once    sync.Once

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startStream binds the receiver, asks the phone to stream the main
// display to it, waits for the first media and starts the keep-alive.
func startStream(ctx context.Context, c *Conn, t streamTimings, now func() time.Time, log *slog.Logger) (*stream, error) {
	pc, err := c.net.ListenUDP(0)
	if err != nil {
		return nil, fmt.Errorf("coredevice: media stream: %w", err)
	}
	rctx, cancel := context.WithCancel(context.Background())
	s := &stream{c: c, pc: pc, id: newUUID(), now: now, first: make(chan struct{}), cancel: cancel}
	s.wg.Add(1)
	go s.receive()
	var sid [4]byte
	rand.Read(sid[:])
	offer, err := mediastream.Offer(newUUID(), mediastream.DefaultBlob(binary.LittleEndian.Uint32(sid[:])))
	if err != nil {
		s.close()
		return nil, err
	}
	local := pc.LocalAddr().(*net.UDPAddr)
	start := mediastream.Start{
		Receiver: netip.AddrPortFrom(c.net.Local(), uint16(local.Port)), Sender: c.net.Peer(),
		ClientSessionID: s.id, Offer: offer,
	}
	// A wedged mediastream daemon never answers (until the phone
	// reboots): bound the start a little past the phone's own 20 s.
	sctx, scancel := context.WithTimeout(ctx, t.start)
	out, err := c.invoke(sctx, mediastream.Service, mediastream.StartFeature, mediastream.StartAction, start.Input())
	scancel()
	if err != nil {
		if sctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("%w: no answer in %v (the phone's media daemon may be stuck; restarting the iPhone clears it)", err, t.start)
		}
		// The phone may have brought the stream up anyway: stop it, so no
		// abandoned stream races a screenshot.
		s.stop(log)
		return nil, streamError(err)
	}
	d, _ := out.(xpc.Dict)
	if s.answer, err = mediastream.ParseAnswer(d); err != nil {
		s.stop(log)
		return nil, fmt.Errorf("coredevice: media stream: %w", err)
	}
	s.wg.Add(1)
	go s.keepalive(rctx, t.keepalive)
	wait := time.NewTimer(t.firstWait)
	defer wait.Stop()
	select {
	case <-s.first:
	case <-wait.C:
		s.stop(log)
		return nil, fmt.Errorf("coredevice: media stream: the iPhone answered but sent no video in %v: %w", t.firstWait, phone.ErrInputFailed)
	case <-ctx.Done():
		s.stop(log)
		return nil, fmt.Errorf("coredevice: media stream: %w", ctx.Err())
	}
	// backboardd re-matches the input surfaces against the new stream;
	// a report sent at once can still be dropped.
	if err := phone.Sleep(ctx, t.settle); err != nil {
		s.stop(log)
		return nil, err
	}
	return s, nil
}

// streamError says what a refused start means for a person.
func streamError(err error) error {
	var ie *InvokeError
	if errors.As(err, &ie) && (ie.Code == 9021 || strings.Contains(ie.Description, "iOS 27")) {
		return &phone.StepError{Err: fmt.Errorf("coredevice: media stream: %w: the iPhone refuses remote control (%s); touch and keys over the cable need iOS 27 or later, use the gadget backend (--phone gadget)", phone.ErrUnsupported, ie.Description),
			Steps: []string{gadgetStep}}
	}
	if errors.Is(err, ErrNoService) || errors.Is(err, ErrNoFeature) {
		return fmt.Errorf("coredevice: media stream: %w: %w", phone.ErrUnsupported, err)
	}
	return fmt.Errorf("coredevice: media stream: %w: %w", phone.ErrInputFailed, err)
}

// receive counts media packets and notes the newest sequence number.
func (s *stream) receive() {
	defer s.wg.Done()
	buf := make([]byte, 65536)
	var cycles uint32
	var prev uint16
	for {
		n, _, err := s.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		p, err := mediastream.ParsePacket(buf[:n])
		if err != nil || p.RTCP {
			continue
		}
		if s.packets.Load() > 0 && p.Seq < prev && prev-p.Seq > 0x8000 {
			cycles++
		}
		prev = p.Seq
		s.seq.Store(cycles<<16 | uint32(p.Seq))
		s.ssrc.Store(p.SSRC)
		s.last.Store(s.now().UnixNano())
		s.packets.Add(1)
		s.once.Do(func() { close(s.first) })
	}
}

// keepalive sends an RTCP receiver report every period to the phone's
// SourcePort: without one the phone's encoder stalls after about 25 s.
func (s *stream) keepalive(ctx context.Context, period time.Duration) {
	defer s.wg.Done()
	to := s.c.net.UDPAddr(s.answer.SourcePort)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		theirs := s.ssrc.Load()
		if theirs == 0 {
			theirs = s.answer.LocalSSRC
		}
		s.pc.WriteTo(mediastream.ReceiverReport(s.answer.RemoteSSRC, theirs, s.seq.Load()), to)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// live reports whether media arrived within stale.
func (s *stream) live(stale time.Duration) bool {
	return s.packets.Load() > 0 && s.now().Sub(time.Unix(0, s.last.Load())) < stale
}

// stop ends the stream on a fresh connection (the phone usually drops
// the channel while stopping; that counts as stopped), waits until the
// phone's status lists no session, and closes the receiver.
func (s *stream) stop(log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if !s.closed() {
		if _, err := s.c.invoke(ctx, mediastream.Service, mediastream.StopFeature, mediastream.StopAction, mediastream.StopInput(s.sessionID())); err != nil {
			var ie *InvokeError
			if errors.As(err, &ie) {
				log.Info("coredevice: stop media stream", "err", err)
			}
		}
		if err := s.c.checkFeature(mediastream.Service, mediastream.StatusFeature); err == nil {
			for range 10 {
				out, err := s.c.invoke(ctx, mediastream.Service, mediastream.StatusFeature, mediastream.StatusAction, xpc.Dict{})
				d, _ := out.(xpc.Dict)
				if n, perr := mediastream.Sessions(d); err != nil || perr != nil || n == 0 {
					break
				}
				if phone.Sleep(ctx, 100*time.Millisecond) != nil {
					break
				}
			}
		}
	}
	s.close()
}

// sessionID is the stream's id as the phone answered it (ours until then).
func (s *stream) sessionID() xpc.UUID {
	if s.answer.ClientSessionID != (xpc.UUID{}) {
		return s.answer.ClientSessionID
	}
	return s.id
}

func (s *stream) closed() bool {
	select {
	case <-s.c.Done():
		return true
	default:
		return false
	}
}

func (s *stream) close() {
	s.cancel()
	s.pc.Close()
	s.wg.Wait()
}
