package muxusb

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/plist"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	boxtls "github.com/openlolo/openlolo/tls"
)

// systemConfig is the file beside the pair records that keeps the
// host's system BUID (usbmuxd's name for it).
const systemConfig = "SystemConfiguration.plist"

// Host is the box's own usbmux: the devices whose sessions are attached,
// and the pair records kept for them, behind usbmux.Mux.
type Host struct {
	// Records keeps pair records as <Dir>/<UDID>.plist and the system
	// BUID in <Dir>/SystemConfiguration.plist, as usbmuxd does in
	// /var/lib/lockdown; Dir belongs in the box's state directory.
	Records lockdown.Store

	mu      sync.Mutex
	devices map[uint64]attached
	lastID  uint64
}

type attached struct {
	dev usbmux.Device
	mux *Mux
}

var _ usbmux.Mux = (*Host)(nil)

// Attach lists the session m as dev (UDID, ProductID and LocationID from
// the USB device; ID and ConnectionType are set here) until the session
// ends, and returns dev as listed.
func (h *Host) Attach(m *Mux, dev usbmux.Device) usbmux.Device {
	h.mu.Lock()
	if h.devices == nil {
		h.devices = map[uint64]attached{}
	}
	h.lastID++
	dev.ID = h.lastID
	dev.ConnectionType = "USB"
	h.devices[dev.ID] = attached{dev: dev, mux: m}
	h.mu.Unlock()
	go func() {
		<-m.Done()
		h.mu.Lock()
		delete(h.devices, dev.ID)
		h.mu.Unlock()
	}()
	return dev
}

func (h *Host) live() []attached {
	h.mu.Lock()
	defer h.mu.Unlock()
	var l []attached
	for _, a := range h.devices {
		if a.mux.Err() == nil {
			l = append(l, a)
		}
	}
	slices.SortFunc(l, func(a, b attached) int { return cmp.Compare(a.dev.ID, b.dev.ID) })
	return l
}

// ListDevices returns the devices whose sessions run, in attach order.
func (h *Host) ListDevices(ctx context.Context) ([]usbmux.Device, error) {
	var devs []usbmux.Device
	for _, a := range h.live() {
		devs = append(devs, a.dev)
	}
	return devs, ctx.Err()
}

// Connect opens a stream to port on the device deviceID.
func (h *Host) Connect(ctx context.Context, deviceID uint64, port uint16) (net.Conn, error) {
	for _, a := range h.live() {
		if a.dev.ID == deviceID {
			return a.mux.Connect(ctx, port)
		}
	}
	return nil, fmt.Errorf("muxusb: connect to port %d of device %d: %w", port, deviceID,
		&usbmux.ResultError{Op: "Connect", Number: usbmux.ResultBadDevice})
}

// ReadPairRecord returns the record kept for udid, or an error wrapping
// usbmux.ErrNoPairRecord.
func (h *Host) ReadPairRecord(ctx context.Context, udid string) ([]byte, error) {
	rec, err := h.Records.Load(udid)
	if errors.Is(err, lockdown.ErrNoRecord) {
		return nil, fmt.Errorf("muxusb: %s: %w", udid, usbmux.ErrNoPairRecord)
	}
	if err != nil {
		return nil, fmt.Errorf("muxusb: read pair record: %w", err)
	}
	return rec.Marshal()
}

// SavePairRecord keeps record (a property list) for udid, replacing any.
func (h *Host) SavePairRecord(ctx context.Context, udid string, deviceID uint64, record []byte) error {
	rec, err := lockdown.ParsePairRecord(record)
	if err != nil {
		return fmt.Errorf("muxusb: save pair record of %s: %w", udid, err)
	}
	if err := h.Records.Save(udid, rec); err != nil {
		return fmt.Errorf("muxusb: save pair record of %s: %w", udid, err)
	}
	return nil
}

// ReadBUID returns the host's system BUID, made once and kept beside the
// pair records, so records made before a restart stay valid.
func (h *Host) ReadBUID(ctx context.Context) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	path := filepath.Join(h.Records.Dir, systemConfig)
	b, err := os.ReadFile(path)
	if err == nil {
		d, err := plist.UnmarshalDict(b)
		if err != nil {
			return "", fmt.Errorf("muxusb: %s: %w (delete it to make a new BUID; phones must then be trusted again)", path, err)
		}
		if buid := d.String("SystemBUID"); buid != "" {
			return buid, nil
		}
		return "", fmt.Errorf("muxusb: %s has no SystemBUID (delete it to make a new one; phones must then be trusted again)", path)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("muxusb: read the system BUID: %w", err)
	}
	buid := newBUID()
	b, err = plist.Marshal(plist.Dict{{Key: "SystemBUID", Value: buid}})
	if err == nil {
		err = os.MkdirAll(h.Records.Dir, 0o700)
	}
	if err == nil {
		err = boxtls.WriteFileAtomic(path, b, 0o600)
	}
	if err != nil {
		return "", fmt.Errorf("muxusb: keep the system BUID: %w", err)
	}
	return buid, nil
}

// newBUID returns a random UUID in usbmuxd's upper-case form.
func newBUID() string {
	var b [16]byte
	rand.Read(b[:])         // never fails
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%X-%X-%X-%X-%X", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
