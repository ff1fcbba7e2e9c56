package adb

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"strings"
)

// hostFeatures are the features the box announces: it speaks shell
// protocol v2 and knows the cmd service.
var hostFeatures = []string{"shell_v2", "cmd"}

// ClientConfig configures the host side of a connection.
type ClientConfig struct {
	// Key is the box's key; required.
	Key *Key
	// Name is shown beside the key in the phone's dialog (adb sends
	// "user@host"); empty means "openlolo".
	Name string
	// AuthPending, if not nil, is called once when the phone does not
	// know the key and asks its owner to allow it: the handshake then
	// waits for the owner (or ctx) and the box can say so on its page.
	AuthPending func(fingerprint string)
}

// Client runs the host side of the handshake on rw (a TCP connection or
// the ADB interface's bulk endpoints) and returns the connection. It
// blocks until the phone accepts the box or ctx ends; an error after the
// key was offered wraps [ErrUnauthorized]. On error rw is closed.
func Client(ctx context.Context, rw io.ReadWriteCloser, cfg ClientConfig) (*Conn, error) {
	if cfg.Key == nil {
		return nil, errors.New("adb: ClientConfig.Key is nil")
	}
	name := cfg.Name
	if name == "" {
		name = "openlolo"
	}
	stop := context.AfterFunc(ctx, func() { rw.Close() })
	defer stop()
	fail := func(err error) (*Conn, error) {
		rw.Close()
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return nil, err
	}
	banner := "host::features=" + strings.Join(hostFeatures, ",")
	if err := WriteMessage(rw, Message{Command: CmdCNXN, Arg0: VersionSkipChecksum, Arg1: MaxPayload, Data: []byte(banner)}, true); err != nil {
		return fail(err)
	}
	signed, offered := false, false
	for {
		m, err := ReadMessage(rw, maxHandshakeData, false)
		if err != nil {
			err = fmt.Errorf("adb: handshake: %w", noEOF(err))
			if offered {
				err = fmt.Errorf("%w: %w", ErrUnauthorized, err)
			}
			return fail(err)
		}
		switch m.Command {
		case CmdCNXN:
			if !stop() { // ctx ended and closed rw meanwhile
				return fail(ctx.Err())
			}
			version, maxData := min(m.Arg0, VersionSkipChecksum), min(m.Arg1, MaxPayload)
			if version < VersionMin || maxData == 0 {
				return fail(fmt.Errorf("adb: the phone answered protocol version 0x%08x with max data %d", m.Arg0, m.Arg1))
			}
			return newConn(rw, version, maxData, strings.TrimRight(string(m.Data), "\x00"), false, nil), nil
		case CmdAUTH:
			if m.Arg0 != AuthToken {
				return fail(fmt.Errorf("adb: handshake: the phone sent AUTH type %d", m.Arg0))
			}
			switch {
			case !signed:
				sig, err := cfg.Key.Sign(m.Data)
				if err != nil {
					return fail(err)
				}
				if err := WriteMessage(rw, Message{Command: CmdAUTH, Arg0: AuthSignature, Data: sig}, true); err != nil {
					return fail(err)
				}
				signed = true
			case !offered:
				if err := WriteMessage(rw, Message{Command: CmdAUTH, Arg0: AuthRSAPublicKey, Data: cfg.Key.AuthData(name)}, true); err != nil {
					return fail(err)
				}
				offered = true
				if cfg.AuthPending != nil {
					cfg.AuthPending(cfg.Key.Fingerprint())
				}
			}
		case CmdSTLS:
			return fail(errors.New("adb: the phone asks for TLS (wireless debugging with pairing), which the box does not speak; use `adb tcpip` mode or USB"))
		default:
			return fail(fmt.Errorf("adb: handshake: unexpected %v", m.Command))
		}
	}
}

// ServerConfig configures the device side of a connection (fakes in
// tests).
type ServerConfig struct {
	// Banner is the device's CNXN banner,
	// "device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=…".
	Banner string
	// Known returns the keys the device accepts a signature from. With
	// Known and Allow both nil the device asks for no authentication.
	Known func() []*rsa.PublicKey
	// Allow is the owner's answer to "Allow USB debugging?" for a key the
	// host offers; nil refuses. It may block.
	Allow func(pub *rsa.PublicKey) bool
	// MaxData is what the device accepts; 0 means [MaxPayload].
	MaxData uint32
	// Offers reports whether the device offers a service (adbd answers
	// OPEN of an unknown service with CLSE); nil offers every service.
	Offers func(service string) bool
}

// Server runs the device side of the handshake on rw and returns the
// connection; [Conn.Accept] takes the streams the host opens.
func Server(ctx context.Context, rw io.ReadWriteCloser, cfg ServerConfig) (*Conn, error) {
	stop := context.AfterFunc(ctx, func() { rw.Close() })
	defer stop()
	fail := func(err error) (*Conn, error) {
		rw.Close()
		return nil, err
	}
	m, err := ReadMessage(rw, maxHandshakeData, false)
	if err != nil {
		return fail(fmt.Errorf("adb: handshake: %w", noEOF(err)))
	}
	if m.Command != CmdCNXN {
		return fail(fmt.Errorf("adb: handshake: the host sent %v before CNXN", m.Command))
	}
	maxData := cfg.MaxData
	if maxData == 0 {
		maxData = MaxPayload
	}
	version, maxData := min(m.Arg0, VersionSkipChecksum), min(m.Arg1, maxData)
	if version < VersionMin || maxData == 0 {
		return fail(fmt.Errorf("adb: the host sent protocol version 0x%08x with max data %d", m.Arg0, m.Arg1))
	}
	connect := func() (*Conn, error) {
		reply := Message{Command: CmdCNXN, Arg0: version, Arg1: maxData, Data: []byte(cfg.Banner)}
		if err := WriteMessage(rw, reply, version < VersionSkipChecksum); err != nil {
			return fail(err)
		}
		return newConn(rw, version, maxData, strings.TrimRight(string(m.Data), "\x00"), true, cfg.Offers), nil
	}
	if cfg.Known == nil && cfg.Allow == nil {
		return connect()
	}
	token := make([]byte, 20)
	sendToken := func() error {
		if _, err := rand.Read(token); err != nil {
			return err
		}
		return WriteMessage(rw, Message{Command: CmdAUTH, Arg0: AuthToken, Data: token}, version < VersionSkipChecksum)
	}
	if err := sendToken(); err != nil {
		return fail(err)
	}
	for {
		a, err := ReadMessage(rw, maxHandshakeData, false)
		if err != nil {
			return fail(fmt.Errorf("adb: handshake: %w", noEOF(err)))
		}
		if a.Command != CmdAUTH {
			return fail(fmt.Errorf("adb: handshake: the host sent %v during AUTH", a.Command))
		}
		switch a.Arg0 {
		case AuthSignature:
			if cfg.Known != nil {
				for _, k := range cfg.Known() {
					if Verify(k, token, a.Data) {
						return connect()
					}
				}
			}
			if err := sendToken(); err != nil {
				return fail(err)
			}
		case AuthRSAPublicKey:
			pub, err := ParsePublicKey(a.Data)
			if err != nil {
				return fail(err)
			}
			if cfg.Allow == nil || !cfg.Allow(pub) {
				return fail(ErrUnauthorized)
			}
			return connect()
		default:
			return fail(fmt.Errorf("adb: handshake: the host sent AUTH type %d", a.Arg0))
		}
	}
}
