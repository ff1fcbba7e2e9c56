package setupnet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"

	"golang.org/x/net/dns/dnsmessage"
)

// DNS answers every name on the setup network with the box: an A question
// gets [DNS.Box], an AAAA question gets the box's IPv6 address if it has
// one and otherwise no answer (so the phone falls back to IPv4), and every
// other type gets no answer. Answers live 1 s so a phone does not keep
// them after it leaves the setup network.
type DNS struct {
	Box  netip.Addr // the box's IPv4 address on the setup network
	Box6 netip.Addr // optional IPv6 address
	Log  *slog.Logger
}

// answerTTL is the answers' lifetime in seconds.
const answerTTL = 1

// Answer builds the reply to one query message. A message that does not
// parse, or is not a query, gets no reply (ok false).
func (d *DNS) Answer(query []byte) (reply []byte, ok bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil || h.Response {
		return nil, false
	}
	qs, err := p.AllQuestions()
	if err != nil {
		return nil, false
	}
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired,
		RecursionAvailable: true, OpCode: h.OpCode}
	if h.OpCode != 0 {
		rh.RCode = dnsmessage.RCodeNotImplemented
	}
	b := dnsmessage.NewBuilder(make([]byte, 0, 512), rh)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, false
	}
	for _, q := range qs {
		if err := b.Question(q); err != nil {
			return nil, false
		}
	}
	if err := b.StartAnswers(); err != nil {
		return nil, false
	}
	for _, q := range qs {
		if h.OpCode != 0 || q.Class != dnsmessage.ClassINET {
			continue
		}
		rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: answerTTL}
		switch {
		case q.Type == dnsmessage.TypeA && d.Box.Is4():
			err = b.AResource(rh, dnsmessage.AResource{A: d.Box.As4()})
		case q.Type == dnsmessage.TypeAAAA && d.Box6.Is6() && !d.Box6.Is4In6():
			err = b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: d.Box6.As16()})
		}
		if err != nil {
			return nil, false
		}
	}
	out, err := b.Finish()
	if err != nil {
		return nil, false
	}
	return out, true
}

// Serve answers queries on pc until ctx ends, then closes pc.
func (d *DNS) Serve(ctx context.Context, pc net.PacketConn) error {
	if !d.Box.Is4() {
		return fmt.Errorf("setupnet: dns: box address %v is not IPv4", d.Box)
	}
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	stop := context.AfterFunc(ctx, func() { pc.Close() })
	defer stop()
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return ctx.Err()
			}
			return fmt.Errorf("setupnet: dns: read: %w", err)
		}
		reply, ok := d.Answer(buf[:n])
		if !ok {
			log.Debug("setupnet: dns: dropped a message that is not a query", "from", from)
			continue
		}
		if _, err := pc.WriteTo(reply, from); err != nil {
			log.Debug("setupnet: dns: reply", "to", from, "err", err)
		}
	}
}
