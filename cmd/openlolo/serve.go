package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/entry"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/update"
	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/ddi"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux"
	"github.com/openlolo/openlolo/hw/gadget"
	"github.com/openlolo/openlolo/hw/phone"
	"github.com/openlolo/openlolo/hw/sim"
)

func serve(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "serve", "--state DIR [flags]")
	state := fs.String("state", "", "state directory (database, certificate); created with mode 0700")
	backend := fs.String("phone", "sim", "phone backend: sim (a simulated iPhone), gadget (USB gadget + capture), coredevice (an iPhone on a USB port, through usbmuxd) or auto (coredevice if usbmuxd sees an iPhone, else gadget if the board can be one, else sim)")
	usbmuxd := fs.String("usbmuxd", "", "coredevice: usbmuxd's socket (default /var/run/usbmuxd)")
	simSize := fs.String("sim-size", "", "screen size of the simulated phone, WxH (default 1179x2556)")
	platform := fs.String("platform", "ios", "gadget: the phone's platform: ios (absolute pointer), ios-relative or android (touchscreen)")
	udc := fs.String("udc", "", "gadget: USB device controller (default: the first)")
	video := fs.String("video", "", "gadget: capture device /dev/videoN (default: the first that streams; none: input only)")
	lan := fs.String("lan", ":443", "LAN HTTPS address")
	httpAddr := fs.String("http", "", "plain-HTTP address that only redirects to HTTPS (e.g. :80); empty: none")
	name := fs.String("name", "", "box name, a DNS label (default openlolo-xxxx from the board serial)")
	rotate := fs.Bool("rotate-cert", false, "make a new LAN certificate (clients must pin it again)")
	setupFile := fs.String("setup-code-file", "", "also write the owner setup code to this file until the box is claimed")
	tailnet := fs.Bool("tailnet", false, "run the remote entry: a Tailscale node named after the box, state in --state/tailscale (the box page's Settings switch overrides this)")
	authKey := fs.String("ts-authkey", "", "Tailscale auth key for the node's first login (else log in from the Settings page)")
	funnel := fs.Bool("funnel", false, "with --tailnet: also publish /mcp and OAuth on the internet through Tailscale Funnel")
	mdns := fs.Bool("mdns", true, "advertise the box on the LAN over mDNS (_openlolo._tcp, <name>.local); default off when --lan is loopback")
	updateKey := fs.String("update-key", "", "install signed updates from the box page: the public key file bundles must be signed with (the SD image's /etc/openlolo/update.pub); empty: no updates")
	release := fs.String("release", "/etc/openlolo-release", "with --update-key: the running root's version, board and build time")
	bootEnv := fs.String("boot-env", "/run/openlolo/boot.env", "with --update-key: the slots stage 1 found (ROOT_SLOT, DISK, ROOTA_DEV, ROOTB_DEV)")
	bootDir := fs.String("boot", "/boot", "with --update-key: the mounted boot partition")
	gpioF := addGPIOFlags(fs)
	wifiF := addSetupNetFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *state == "" {
		return usagef("--state DIR is required: the directory that keeps the database and the certificate")
	}
	if *funnel && !*tailnet {
		return usagef("--funnel needs --tailnet: Funnel publishes the remote entry")
	}
	if !flagSet(fs, "mdns") && entry.IsLoopback(*lan) {
		*mdns = false // nobody on the LAN can reach a loopback entry
	}
	if *simSize != "" && *backend != "sim" && *backend != "auto" {
		return usagef("--sim-size applies to --phone sim only (or auto, when it falls back to sim)")
	}
	if err := gpioF.check(fs); err != nil {
		return err
	}
	setupAt, err := wifiF.check(*httpAddr)
	if err != nil {
		return err
	}
	var ws *wifiSettings
	var wifiPage owner.WiFi
	if *wifiF.iface != "" {
		ws = &wifiSettings{}
		wifiPage = ws
	}
	var front *setupFront
	var httpFront func(http.Handler) http.Handler
	if setupAt.Shared {
		front = &setupFront{addr: setupAt.Addr}
		httpFront = front.wrap
	}
	log := c.logger()
	ph, err := openPhone(ctx, *backend, *simSize, gadget.Options{
		Platform: *platform, UDC: *udc, Video: *video, Logger: log.With("phone", "gadget"),
	}, coredevice.Options{Socket: *usbmuxd, StateDir: *state, Logger: log.With("phone", "coredevice"),
		// The developer disk image, signed by Apple after every restart of the phone.
		Mount: coredevice.MountFrom(filepath.Join(*state, "coredevice", "ddi"), ddi.TSS{})})
	if err != nil {
		return err
	}
	defer ph.Close()
	panel, closePanel, err := gpioF.open(log.With("hw", "gpio"))
	if err != nil {
		return err
	}
	defer closePanel()
	var upd *appliance.UpdateConfig
	if *updateKey != "" {
		if upd, err = openUpdates(*updateKey, *release, *bootEnv, *bootDir); err != nil {
			log.Warn("updates are off: the box cannot update itself", "err", err)
		}
	}
	ver := version
	if upd != nil && upd.Release.Version != version {
		// the image's version is what the owner installed and updates from
		log.Info("the root image's version differs from the binary's; the box reports the image's", "image", upd.Release.Version, "binary", version)
		ver = upd.Release.Version
	}
	box, err := appliance.New(ctx, appliance.Config{
		Update:        upd,
		Panel:         panel,
		StateDir:      *state,
		Name:          *name,
		Version:       ver,
		Phone:         ph,
		LANAddr:       *lan,
		HTTPAddr:      *httpAddr,
		HTTPFront:     httpFront,
		WiFi:          wifiPage,
		RotateCert:    *rotate,
		SetupCodeFile: *setupFile,
		MDNS:          *mdns,
		Tailnet:       *tailnet,
		TSAuthKey:     *authKey,
		Funnel:        *funnel,
		Logger:        log,
		Out:           c.Stdout,
	})
	if err != nil {
		return err
	}
	if *wifiF.iface != "" {
		return runWithSetupNet(ctx, box, wifiF, setupAt, front, ws, *state, c.Stdout, log)
	}
	return box.Run(ctx)
}

// openUpdates reads what the updater needs on the SD image.
func openUpdates(keyFile, releaseFile, bootEnv, bootDir string) (*appliance.UpdateConfig, error) {
	key, err := update.ReadPublicKey(keyFile)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(releaseFile)
	if err != nil {
		return nil, fmt.Errorf("--release: %w", err)
	}
	rel, err := update.ParseRelease(b)
	if err != nil {
		return nil, err
	}
	card, err := update.CardFromBoot(bootEnv, bootDir)
	if err != nil {
		return nil, err
	}
	return &appliance.UpdateConfig{Slots: card, Key: key, Release: rel}, nil
}

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// openPhone makes the phone backend the flags name.
func openPhone(ctx context.Context, backend, size string, gopts gadget.Options, copts coredevice.Options) (phone.Phone, error) {
	switch backend {
	case "sim":
		var opts sim.Options
		if size != "" {
			pt, err := parseSize(size)
			if err != nil {
				return nil, err
			}
			opts.Size = pt
		}
		p, err := sim.New(opts)
		if err != nil {
			return nil, fmt.Errorf("--phone sim: %w", err)
		}
		return p, nil
	case "gadget":
		p, err := gadget.Open(ctx, gopts)
		if err != nil {
			return nil, fmt.Errorf("--phone gadget: %w", err)
		}
		return p, nil
	case "auto":
		return autoPhone(ctx, size, gopts, copts)
	case "coredevice":
		p, err := coredevice.Open(ctx, copts)
		if err != nil {
			return nil, fmt.Errorf("--phone coredevice: %w", err)
		}
		return p, nil
	}
	return nil, usagef("--phone %q is not a backend: use sim, gadget, coredevice or auto", backend)
}

// autoPhone picks the backend for what is attached: an iPhone that
// usbmuxd sees on a USB port → coredevice; else, on a board that can be a
// USB gadget → gadget; else the simulated phone.
func autoPhone(ctx context.Context, size string, gopts gadget.Options, copts coredevice.Options) (phone.Phone, error) {
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	devs, err := (&usbmux.Client{Socket: copts.Socket}).ListDevices(pctx)
	cancel()
	for _, d := range devs {
		if err == nil && d.ConnectionType == "USB" {
			return openPhone(ctx, "coredevice", "", gopts, copts)
		}
	}
	if p, err := gadget.Open(ctx, gopts); err == nil {
		return p, nil
	} else if gopts.Logger != nil {
		gopts.Logger.Info("--phone auto: no iPhone on usbmuxd and no USB gadget; using the simulated phone", "gadget", err)
	}
	return openPhone(ctx, "sim", size, gopts, copts)
}

// parseSize reads "WxH".
func parseSize(s string) (image.Point, error) {
	w, h, ok := strings.Cut(strings.ToLower(s), "x")
	x, errx := strconv.Atoi(w)
	y, erry := strconv.Atoi(h)
	if !ok || errx != nil || erry != nil || x <= 0 || y <= 0 {
		return image.Point{}, usagef("--sim-size %q is not WIDTHxHEIGHT in pixels, e.g. 1179x2556", s)
	}
	return image.Pt(x, y), nil
}
