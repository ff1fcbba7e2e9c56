package coredevice

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/coredevice/ddi"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/plist"
	"github.com/openlolo/openlolo/hw/coredevice/rsd"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/phone"
)

// AMFIService is the lockdown service that reveals the Developer Mode
// switch in Settings (Xcode asks it when it finds Developer Mode off).
const AMFIService = "com.apple.amfi.lockdown"

// IOSMajor returns the major number of an iOS version such as "26.2.1"
// (0 when v is not one).
func IOSMajor(v string) int {
	if i := strings.IndexByte(v, '.'); i >= 0 {
		v = v[:i]
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// InputProblems are the problems that only take input away: below iOS
// 27 the phone takes no touch or keys over CoreDevice.
func InputProblems(version string) phone.Problems {
	if m := IOSMajor(version); m > 0 && m < 27 {
		return phone.ProblemSet(phone.InputNeedsIOS27)
	}
	return 0
}

// DiskImageMounted reports whether the personalized developer disk image
// is mounted: the image mounter's own answer where RSD lists it, else
// whether the developer services it brings are in the catalogue.
func (c *Conn) DiskImageMounted(ctx context.Context) (bool, error) {
	if _, ok := c.RSD.Service(ddi.Service); !ok {
		_, ok := c.RSD.Service(ScreenCaptureService)
		return ok, nil
	}
	m, err := c.Mounter(ctx)
	if err != nil {
		return false, err
	}
	defer m.Close()
	sigs, err := m.Mounted(ctx, ddi.Personalized)
	if err != nil {
		return false, err
	}
	return len(sigs) > 0, nil
}

// Mounter opens the phone's image mounter over the tunnel.
func (c *Conn) Mounter(ctx context.Context) (*ddi.Mounter, error) {
	s, ok := c.RSD.Service(ddi.Service)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoService, ddi.Service)
	}
	tc, err := c.net.DialTCP(ctx, s.Port)
	if err != nil {
		return nil, fmt.Errorf("coredevice: image mounter: %w", err)
	}
	m, err := ddi.Open(ctx, tc)
	if err != nil {
		tc.Close()
		return nil, err
	}
	return m, nil
}

// Rediscover reads RSD's catalogue again: services appear once the disk
// image is mounted. Not safe while other goroutines use c.
func (c *Conn) Rediscover(ctx context.Context) error {
	rc, err := c.dialXPC(ctx, c.Params.RSDPort)
	if err != nil {
		return fmt.Errorf("coredevice: service discovery: %w", err)
	}
	defer rc.Close()
	h, err := rsd.Read(ctx, rc)
	if err != nil {
		return fmt.Errorf("coredevice: service discovery: %w", err)
	}
	c.RSD = h
	return nil
}

// RevealDeveloperMode makes the Developer Mode switch appear in Settings
// › Privacy & Security (it is hidden until a developer tool asks). It
// runs over lockdown, outside the tunnel.
func (d *Dialer) RevealDeveloperMode(ctx context.Context, dev usbmux.Device) error {
	rec, err := d.Store.Load(dev.UDID)
	if err != nil {
		return fmt.Errorf("coredevice: reveal Developer Mode: %w", err)
	}
	lc, err := d.lockdown(ctx, dev)
	if err != nil {
		return err
	}
	defer lc.Close()
	if _, err := lc.StartSession(ctx, rec); err != nil {
		return fmt.Errorf("coredevice: reveal Developer Mode: %w", err)
	}
	svc, err := lc.StartService(ctx, AMFIService, rec.EscrowBag)
	if err != nil {
		return fmt.Errorf("coredevice: reveal Developer Mode: %w", err)
	}
	raw, err := d.Mux.Connect(ctx, dev.ID, svc.Port)
	if err != nil {
		return fmt.Errorf("coredevice: reveal Developer Mode: %w", err)
	}
	var conn net.Conn = raw
	if svc.SSL {
		if conn, err = lockdown.ClientTLS(ctx, raw, rec); err != nil {
			raw.Close()
			return fmt.Errorf("coredevice: reveal Developer Mode: %w", err)
		}
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	// action 0 reveals the switch; 1 would arm it and restart the phone,
	// which the owner does from Settings instead.
	if err := lockdown.WriteMessage(conn, plist.Dict{{Key: "action", Value: int64(0)}}); err != nil {
		return fmt.Errorf("coredevice: reveal Developer Mode: %w", err)
	}
	r, err := lockdown.ReadMessage(conn)
	if err != nil {
		return fmt.Errorf("coredevice: reveal Developer Mode: %w", err)
	}
	if e := r.String("Error"); e != "" {
		return fmt.Errorf("coredevice: reveal Developer Mode: the phone refused: %s", e)
	}
	if _, ok := r.Get("success"); !ok {
		return fmt.Errorf("coredevice: reveal Developer Mode: %w: no success in the reply", lockdown.ErrMalformed)
	}
	return nil
}

// Readiness is what keeps a tunnelled phone from being ready, if
// anything: Developer Mode, then the disk image.
type Readiness struct {
	Ready    bool
	Code     api.PhoneState // developer_mode_off or ddi_not_mounted when not Ready
	Reason   string
	Problems phone.Problems
}

// checkReady works out whether c's phone is ready. Developer Mode is
// asked first (the image cannot mount without it); then the disk image,
// which mount, when set, tries to mount (mount returning nil means it
// is mounted now, and the catalogue is read again).
func checkReady(ctx context.Context, c *Conn, mount func(context.Context, *Conn) error) Readiness {
	input := InputProblems(c.Info.ProductVersion)
	on, err := c.DeveloperMode(ctx)
	if err == nil && !on {
		return Readiness{Code: api.StateDeveloperModeOff, Problems: input.With(phone.DeveloperModeOff),
			Reason: "Developer Mode is off on the iPhone: turn it on in Settings › Privacy & Security › Developer Mode; the phone restarts and asks you to confirm."}
	}
	mounted, err := c.DiskImageMounted(ctx)
	if err != nil {
		return Readiness{Code: api.StateDDINotMounted, Problems: input.With(phone.DiskImageNotMounted),
			Reason: "The box cannot ask the iPhone whether its developer disk image is mounted: " + err.Error()}
	}
	if mounted {
		if _, ok := c.RSD.Service(ScreenCaptureService); !ok {
			// Mounted since the tunnel read the catalogue (by Xcode,
			// or by us on an earlier check).
			if err := c.Rediscover(ctx); err != nil {
				return Readiness{Code: api.StateDDINotMounted, Problems: input.With(phone.DiskImageNotMounted),
					Reason: "The disk image is mounted, but the box could not read the phone's services again: " + err.Error()}
			}
		}
		return Readiness{Ready: true, Problems: input}
	}
	if mount == nil {
		return Readiness{Code: api.StateDDINotMounted, Problems: input.With(phone.DiskImageNotMounted),
			Reason: "The iPhone's developer disk image is not mounted, and this box has no disk image to mount (see the box page's help)."}
	}
	if err := mount(ctx, c); err != nil {
		return Readiness{Code: api.StateDDINotMounted, Problems: input.With(phone.DiskImageNotMounted),
			Reason: "The box could not mount the iPhone's developer disk image (it needs the internet after every restart of the phone): " + err.Error()}
	}
	if err := c.Rediscover(ctx); err != nil {
		return Readiness{Code: api.StateDDINotMounted, Problems: input.With(phone.DiskImageNotMounted),
			Reason: "The disk image is mounted, but the box could not read the phone's services again: " + err.Error()}
	}
	return Readiness{Ready: true, Problems: input}
}

// await holds c until its phone is ready (true), asking again every
// Recheck, or until the tunnel or ctx ends (false; c is then closed).
// While Developer Mode is off it reveals the switch in Settings, once per
// tunnel.
func (b *Backend) await(ctx context.Context, c *Conn) bool {
	revealed := false
	mount := limitMount(b.o.Mount, b.now)
	for {
		r := checkReady(ctx, c, mount)
		if r.Ready {
			return true
		}
		if r.Problems.Has(phone.DeveloperModeOff) && !revealed {
			revealed = true
			if err := b.dialer.RevealDeveloperMode(ctx, c.dev); err != nil {
				b.log.Info("coredevice: reveal Developer Mode", "err", err)
			}
		}
		b.setState(phone.State{Code: r.Code, Reason: r.Reason, Problems: r.Problems}, phone.Detached)
		t := time.NewTimer(b.o.Recheck)
		select {
		case <-t.C:
			continue
		case <-c.Done():
			if ctx.Err() == nil {
				b.setState(phone.State{Code: api.StateDetached, Reason: "The iPhone went away (unplugged or restarting); waiting for it."}, phone.Detached)
			}
		case <-ctx.Done():
		}
		t.Stop()
		c.Close()
		return false
	}
}

// MountFrom returns an [Options.Mount] that mounts the personalized disk
// image kept in dir (Xcode's Restore folder: BuildManifest.plist, the
// image, its trust cache), signed by signer for the phone's boot
// (ddi.TSS{}: Apple's signing server, over the internet).
func MountFrom(dir string, signer ddi.Signer) func(context.Context, *Conn) error {
	return func(ctx context.Context, c *Conn) error {
		img, err := ddi.LoadImage(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("this box has no disk image: copy the Restore folder of Xcode's iOS developer disk image to %s", dir)
		}
		if err != nil {
			return err
		}
		ecid, ok := c.RSD.Properties.Uint("UniqueChipID")
		if !ok {
			return fmt.Errorf("coredevice: the phone's service discovery gives no UniqueChipID, which signing needs")
		}
		return ddi.MountImage(ctx, c.Mounter, img, ecid, signer)
	}
}

// mountRetry is the least time between two mount attempts of one tunnel:
// each may ask Apple's signing server.
const mountRetry = 30 * time.Second

// limitMount calls mount at most once per mountRetry, repeating the last
// error in between.
func limitMount(mount func(context.Context, *Conn) error, now func() time.Time) func(context.Context, *Conn) error {
	if mount == nil {
		return nil
	}
	var last time.Time
	var lastErr error
	return func(ctx context.Context, c *Conn) error {
		if lastErr != nil && now().Sub(last) < mountRetry {
			return lastErr
		}
		last, lastErr = now(), mount(ctx, c)
		return lastErr
	}
}
