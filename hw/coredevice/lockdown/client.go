package lockdown

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

// Port is lockdownd's port on the device.
const Port = 62078

// Client is one connection to lockdownd. It is not safe for concurrent
// use: lockdown answers one request at a time.
type Client struct {
	conn  net.Conn // the raw stream, then the TLS session over it
	label string
}

// NewClient speaks lockdown over conn (a usbmux stream to Port). label
// names the client in every request ("" means "openlolo").
func NewClient(conn net.Conn, label string) *Client {
	if label == "" {
		label = "openlolo"
	}
	return &Client{conn: conn, label: label}
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Request sends req (Label and ProtocolVersion are added) and returns the
// reply; a reply with Error is returned as *Error.
func (c *Client) Request(ctx context.Context, req plist.Dict) (plist.Dict, error) {
	name := req.String("Request")
	msg := append(plist.Dict{
		{Key: "Label", Value: c.label},
		{Key: "ProtocolVersion", Value: "2"},
	}, req...)
	stop := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		if stop() {
			return
		}
		c.conn.SetDeadline(time.Time{})
	}()
	err := WriteMessage(c.conn, msg)
	var reply plist.Dict
	if err == nil {
		reply, err = ReadMessage(c.conn)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("lockdown: %s: %w", name, ctx.Err())
	}
	if err != nil {
		return nil, err
	}
	if e := reply.String("Error"); e != "" {
		return reply, &Error{Request: name, Name: e}
	}
	return reply, nil
}

// Checkin runs RSDCheckin, which starts lockdown over the tunnel (the
// "shim" services RSD lists, e.g. com.apple.mobile.lockdown.remote.trusted):
// no session and no TLS, the tunnel is the trust. After it, GetValue and
// the rest work as usual.
func (c *Client) Checkin(ctx context.Context) error {
	r, err := c.Request(ctx, plist.Dict{{Key: "Request", Value: "RSDCheckin"}})
	if err != nil {
		return err
	}
	if r.String("Request") != "RSDCheckin" {
		return fmt.Errorf("%w: RSDCheckin answered with %q", ErrMalformed, r.String("Request"))
	}
	stop := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	r, err = ReadMessage(c.conn)
	if err != nil {
		return fmt.Errorf("lockdown: RSDCheckin: %w", err)
	}
	if e := r.String("Error"); e != "" {
		return &Error{Request: "RSDCheckin", Name: e}
	}
	if r.String("Request") != "StartService" {
		return fmt.Errorf("%w: RSDCheckin then %q, want StartService", ErrMalformed, r.String("Request"))
	}
	return nil
}

// QueryType returns lockdownd's type, "com.apple.mobile.lockdown" on a
// device.
func (c *Client) QueryType(ctx context.Context) (string, error) {
	r, err := c.Request(ctx, plist.Dict{{Key: "Request", Value: "QueryType"}})
	if err != nil {
		return "", err
	}
	return r.String("Type"), nil
}

// GetValue returns a value; domain and key may be "" (all values of the
// domain, as a dictionary).
func (c *Client) GetValue(ctx context.Context, domain, key string) (any, error) {
	req := plist.Dict{{Key: "Request", Value: "GetValue"}}
	if domain != "" {
		req = append(req, plist.Entry{Key: "Domain", Value: domain})
	}
	if key != "" {
		req = append(req, plist.Entry{Key: "Key", Value: key})
	}
	r, err := c.Request(ctx, req)
	if err != nil {
		return nil, err
	}
	v, ok := r.Get("Value")
	if !ok {
		return nil, fmt.Errorf("%w: GetValue %s/%s reply without Value", ErrMalformed, domain, key)
	}
	return v, nil
}

// StartSession starts a session with rec; when the device asks for it, the
// connection continues in TLS with rec's host certificate. It returns the
// session id.
func (c *Client) StartSession(ctx context.Context, rec *PairRecord) (string, error) {
	r, err := c.Request(ctx, plist.Dict{
		{Key: "Request", Value: "StartSession"},
		{Key: "HostID", Value: rec.HostID},
		{Key: "SystemBUID", Value: rec.SystemBUID},
	})
	if err != nil {
		return "", err
	}
	id := r.String("SessionID")
	if !r.Bool("EnableSessionSSL") {
		return id, nil
	}
	tc, err := ClientTLS(ctx, c.conn, rec)
	if err != nil {
		return "", err
	}
	c.conn = tc
	return id, nil
}

// ClientTLS runs a TLS client handshake on conn with rec's host
// certificate, as lockdown sessions and SSL services want. The device's
// certificate is not verified against anything: the pair record is the
// trust, and the device proves it by accepting ours.
func ClientTLS(ctx context.Context, conn net.Conn, rec *PairRecord) (*tls.Conn, error) {
	cert, err := rec.TLSCertificate()
	if err != nil {
		return nil, err
	}
	tc := tls.Client(conn, &tls.Config{
		Certificates:       []tls.Certificate{cert},
		InsecureSkipVerify: true,
		MinVersion:         tls.VersionTLS12,
	})
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, fmt.Errorf("lockdown: TLS with the pair record: %w", err)
	}
	return tc, nil
}

// Service is a started service: the device port to usbmux-connect to,
// and whether that stream must speak TLS with the pair record.
type Service struct {
	Port uint16
	SSL  bool
}

// StartService starts a service by name (a session must be running).
func (c *Client) StartService(ctx context.Context, name string, escrowBag []byte) (Service, error) {
	req := plist.Dict{{Key: "Request", Value: "StartService"}, {Key: "Service", Value: name}}
	if escrowBag != nil {
		req = append(req, plist.Entry{Key: "EscrowBag", Value: escrowBag})
	}
	r, err := c.Request(ctx, req)
	if err != nil {
		return Service{}, err
	}
	p, ok := r.Uint("Port")
	if !ok || p == 0 || p > 65535 {
		return Service{}, fmt.Errorf("%w: StartService %s: port %v", ErrMalformed, name, p)
	}
	return Service{Port: uint16(p), SSL: r.Bool("EnableServiceSSL")}, nil
}

// Pair asks the device to trust rec (made by NewPairRecord from its
// DevicePublicKey). Until the owner answers the prompt, it fails with an
// error matching ErrPairingPending; see PairAndWait. On success rec's
// EscrowBag is set.
func (c *Client) Pair(ctx context.Context, rec *PairRecord) error {
	r, err := c.Request(ctx, plist.Dict{
		{Key: "Request", Value: "Pair"},
		{Key: "PairRecord", Value: plist.Dict{
			{Key: "DeviceCertificate", Value: rec.DeviceCertificate},
			{Key: "HostCertificate", Value: rec.HostCertificate},
			{Key: "HostID", Value: rec.HostID},
			{Key: "RootCertificate", Value: rec.RootCertificate},
			{Key: "SystemBUID", Value: rec.SystemBUID},
		}},
		{Key: "PairingOptions", Value: plist.Dict{{Key: "ExtendedPairingErrors", Value: true}}},
	})
	if err != nil {
		return err
	}
	if bag := r.Data("EscrowBag"); bag != nil {
		rec.EscrowBag = bag
	}
	return nil
}

// PairAndWait pairs, repeating the request every interval while the phone
// shows Trust This Computer?, until the owner trusts (nil), declines
// (ErrUserDenied), or ctx ends. waiting, if not nil, is called once when
// the prompt is first seen, so the box page can say so. An unlocked phone
// is needed: a locked one answers ErrPasscode, which is retried too.
func (c *Client) PairAndWait(ctx context.Context, rec *PairRecord, interval time.Duration, waiting func(error)) error {
	told := false
	for {
		err := c.Pair(ctx, rec)
		if err == nil || !(errors.Is(err, ErrPairingPending) || errors.Is(err, ErrPasscode)) {
			return err
		}
		if !told && waiting != nil {
			waiting(err)
			told = true
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("lockdown: waiting for Trust This Computer?: %w", ctx.Err())
		case <-t.C:
		}
	}
}
