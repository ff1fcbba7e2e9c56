// Package dditest is a fake mobile_image_mounter for tests: it checks in
// over RSD, reports what is mounted and Developer Mode, and takes the
// personalization, upload and mount commands a real phone takes.
package dditest

import (
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

	mu        sync.Mutex
	mounted   []byte // the mounted image's signature; nil: none
	commands  []string
	onMounted func()
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
		default:
			reply = refuse("UnknownCommand")
		}
		if lockdown.WriteMessage(conn, reply) != nil {
			return
		}
	}
}
