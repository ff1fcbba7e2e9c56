// Package rsd reads RemoteServiceDiscovery, the catalogue an iPhone
// serves on the tunnel (port 58783 in practice): the device's properties
// and, per service, its port and features.
//
// After the RemoteXPC handshake the device pushes one Handshake message
// on the root stream. We send no host Handshake (go-ios does not either;
// pymobiledevice3 does), which the device accepts on iOS 17 to 27.
package rsd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/openlolo/openlolo/hw/coredevice/remotexpc"
	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// ErrMalformed is wrapped by errors about a handshake that is not one.
var ErrMalformed = errors.New("rsd: malformed handshake")

// Service is one catalogue entry.
type Service struct {
	Name          string
	Port          uint16
	UsesRemoteXPC bool     // false: a lockdown shim (RSDCheckin, plist framing)
	Features      []string // empty: the device does not say
	Version       uint64
}

// HasFeature reports whether the device advertises feature for s. An
// empty feature list advertises nothing.
func (s Service) HasFeature(feature string) bool { return slices.Contains(s.Features, feature) }

// Handshake is what the device tells about itself.
type Handshake struct {
	UDID         string
	ProductType  string // e.g. "iPhone17,1"
	OSVersion    string // e.g. "27.0"
	BuildVersion string
	DeviceClass  string
	Properties   xpc.Dict
	Services     map[string]Service
}

// Service returns the named service.
func (h Handshake) Service(name string) (Service, bool) {
	s, ok := h.Services[name]
	return s, ok
}

// Parse reads a Handshake message body.
func Parse(d xpc.Dict) (Handshake, error) {
	if t := d.String("MessageType"); t != "Handshake" {
		return Handshake{}, fmt.Errorf("%w: MessageType %q", ErrMalformed, t)
	}
	p := d.Dict("Properties")
	h := Handshake{
		UDID:         p.String("UniqueDeviceID"),
		ProductType:  p.String("ProductType"),
		OSVersion:    p.String("OSVersion"),
		BuildVersion: p.String("BuildVersion"),
		DeviceClass:  p.String("DeviceClass"),
		Properties:   p,
		Services:     map[string]Service{},
	}
	if h.UDID == "" {
		return Handshake{}, fmt.Errorf("%w: no UniqueDeviceID", ErrMalformed)
	}
	for _, e := range d.Dict("Services") {
		sd, ok := e.Value.(xpc.Dict)
		if !ok {
			return Handshake{}, fmt.Errorf("%w: service %q is %T", ErrMalformed, e.Key, e.Value)
		}
		port, err := strconv.ParseUint(sd.String("Port"), 10, 16)
		if err != nil || port == 0 {
			return Handshake{}, fmt.Errorf("%w: service %q port %q", ErrMalformed, e.Key, sd.String("Port"))
		}
		sp := sd.Dict("Properties")
		s := Service{Name: e.Key, Port: uint16(port), UsesRemoteXPC: sp.Bool("UsesRemoteXPC")}
		s.Version, _ = sp.Uint("ServiceVersion")
		for _, f := range sp.Array("Features") {
			if fs, ok := f.(string); ok {
				s.Features = append(s.Features, fs)
			}
		}
		h.Services[e.Key] = s
	}
	return h, nil
}

// Read reads the device's Handshake from a RemoteXPC connection to RSD.
func Read(ctx context.Context, c *remotexpc.Conn) (Handshake, error) {
	for {
		stream, m, err := c.Receive(ctx)
		if err != nil {
			return Handshake{}, fmt.Errorf("rsd: %w", err)
		}
		if stream == remotexpc.RootStream {
			return Parse(m.Body)
		}
	}
}
