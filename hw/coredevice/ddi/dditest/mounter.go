// Package dditest is a fake mobile_image_mounter for tests: it checks in
// over RSD, reports what is mounted and Developer Mode, and takes the
// personalization, upload and mount commands a real phone takes.
package dditest

import (
	"bytes"
	"crypto/sha512"
	"io"
	"net"
	"sync"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

// Mounter is a fake image mounter. Set the exported fields before serving;
// use the methods while serving.
type Mounter struct {
	// DeveloperMode is what QueryDeveloperModeStatus says; MountImage is
	// refused without it, as on a phone.
	DeveloperMode bool
	// BoardID, ChipID and SecurityDomain are the chip's personalization
	// identifiers; Nonce is this boot's nonce.
	BoardID, ChipID, SecurityDomain uint64
	Nonce                           []byte
	// Valid says whether MountImage accepts a ticket (nil: any non-empty
	// one).
	Valid func(ticket []byte) bool

	mu        sync.Mutex
	mounted   []byte // the mounted image's signature; nil: none
	commands  []string
	onMounted func()
	stored    map[string][]byte // image digest → ticket, kept until Restart
	uploaded  []byte
	upTicket  []byte
	trust     []byte
}

// Restart forgets the mounted image and stored tickets and picks a new
// nonce, as a restart of the phone does.
func (m *Mounter) Restart(nonce []byte) {
	m.mu.Lock()
	m.mounted, m.stored, m.uploaded, m.Nonce = nil, nil, nil, nonce
	m.mu.Unlock()
}

// Uploaded returns the image bytes and trust cache of the last mount.
func (m *Mounter) Uploaded() (image, trustCache []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]byte(nil), m.uploaded...), append([]byte(nil), m.trust...)
}

// SetMounted mounts (a signature) or unmounts (nil) an image, as a restart
// of the phone does.
func (m *Mounter) SetMounted(sig []byte) {
	m.mu.Lock()
	m.mounted = sig
	f := m.onMounted
	m.mu.Unlock()
	if f != nil && sig != nil {
		f()
	}
}

// IsMounted reports whether an image is mounted.
func (m *Mounter) IsMounted() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mounted != nil
}

// OnMounted sets a function called whenever an image gets mounted.
func (m *Mounter) OnMounted(f func()) {
	m.mu.Lock()
	m.onMounted = f
	m.mu.Unlock()
}

// Commands returns the commands served so far, in order.
func (m *Mounter) Commands() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string{}, m.commands...)
}

func refuse(name string) plist.Dict {
	return plist.Dict{{Key: "Error", Value: name}}
}

// Serve answers on conn until it closes or the client hangs up.
func (m *Mounter) Serve(conn net.Conn) {
	defer conn.Close()
	for {
		req, err := lockdown.ReadMessage(conn)
		if err != nil {
			return
		}
		if req.String("Request") == "RSDCheckin" {
			if lockdown.WriteMessage(conn, plist.Dict{{Key: "Request", Value: "RSDCheckin"}}) != nil ||
				lockdown.WriteMessage(conn, plist.Dict{{Key: "Request", Value: "StartService"}}) != nil {
				return
			}
			continue
		}
		cmd := req.String("Command")
		m.mu.Lock()
		m.commands = append(m.commands, cmd)
		m.mu.Unlock()
		var reply plist.Dict
		switch cmd {
		case "Hangup":
			return
		case "LookupImage":
			sigs := []any{}
			m.mu.Lock()
			if m.mounted != nil && req.String("ImageType") == "Personalized" {
				sigs = append(sigs, m.mounted)
			}
			m.mu.Unlock()
			reply = plist.Dict{{Key: "ImageSignature", Value: sigs}, {Key: "Status", Value: "Complete"}}
		case "QueryDeveloperModeStatus":
			reply = plist.Dict{{Key: "DeveloperModeStatus", Value: m.DeveloperMode}}
		case "QueryPersonalizationIdentifiers":
			reply = plist.Dict{{Key: "PersonalizationIdentifiers", Value: plist.Dict{
				{Key: "BoardId", Value: m.BoardID}, {Key: "ChipID", Value: m.ChipID},
				{Key: "SecurityDomain", Value: m.SecurityDomain}, {Key: "Ap,OSLongVersion", Value: "27.0.0"},
			}}}
		case "QueryNonce":
			m.mu.Lock()
			reply = plist.Dict{{Key: "PersonalizationNonce", Value: m.Nonce}}
			m.mu.Unlock()
		case "QueryPersonalizationManifest":
			m.mu.Lock()
			t, ok := m.stored[string(req.Data("ImageSignature"))]
			m.mu.Unlock()
			if !ok {
				// A phone answers the refusal and drops the connection.
				lockdown.WriteMessage(conn, refuse("MissingManifest"))
				return
			}
			reply = plist.Dict{{Key: "ImageSignature", Value: t}}
		case "ReceiveBytes":
			size, ok := req.Uint("ImageSize")
			if !ok || len(req.Data("ImageSignature")) == 0 || req.String("ImageType") != "Personalized" || size > 1<<30 {
				reply = refuse("InvalidArgument")
				break
			}
			if lockdown.WriteMessage(conn, plist.Dict{{Key: "Status", Value: "ReceiveBytesAck"}}) != nil {
				return
			}
			b := make([]byte, size)
			if _, err := io.ReadFull(conn, b); err != nil {
				return
			}
			m.mu.Lock()
			m.uploaded, m.upTicket = b, req.Data("ImageSignature")
			m.mu.Unlock()
			reply = plist.Dict{{Key: "Status", Value: "Complete"}}
		case "MountImage":
			t := req.Data("ImageSignature")
			m.mu.Lock()
			up, upTicket := m.uploaded, m.upTicket
			m.mu.Unlock()
			switch {
			case !m.DeveloperMode:
				reply = refuse("DeveloperModeIsNotEnabled")
			case up == nil || !bytes.Equal(t, upTicket):
				reply = refuse("ImageNotUploaded")
			case len(t) == 0 || m.Valid != nil && !m.Valid(t):
				reply = refuse("ImageSignatureInvalid")
			default:
				sum := sha512.Sum384(up)
				m.mu.Lock()
				if m.stored == nil {
					m.stored = map[string][]byte{}
				}
				m.stored[string(sum[:])] = t
				m.trust = req.Data("ImageTrustCache")
				m.mu.Unlock()
				m.SetMounted(t)
				reply = plist.Dict{{Key: "Status", Value: "Complete"}}
			}
		default:
			reply = refuse("UnknownCommand")
		}
		if lockdown.WriteMessage(conn, reply) != nil {
			return
		}
	}
}
