package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"

	"strconv"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/entry"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/appliance/update"
	"github.com/openlolo/openlolo/phone"
)

func serve(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "serve", "--state DIR [flags]")
	state := fs.String("state", "", "state directory (database, certificate); created with mode 0700")
	phones := addPhoneFlags(fs, "sim", phoneBackends())
	sims := fs.Int("sims", 1, "with --phone sim: how many simulated phones the box drives (ids sim-1 .. sim-N)")
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
	jpegF := fs.String("jpeg-encoder", jpegAuto, "how pictures are JPEG-encoded: auto (a V4L2 memory-to-memory hardware encoder when the kernel offers one, as a Pi's bcm2835-codec; else software), software, or a video node such as /dev/video31")
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
	if err := phones.check(); err != nil {
		return err
	}
	if *sims < 1 || *sims > maxSims || (*sims > 1 && *phones.name != "sim") {
		return usagef("--sims %d: give 1 to %d, with --phone sim", *sims, maxSims)
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
	hwJPEG, err := openJPEG(*jpegF, "", log.With("hw", "jpeg"))
	if err != nil {
		return err
	}
	var jpeg picture.JPEGEncoder
	if hwJPEG != nil {
		defer hwJPEG.Close()
		jpeg = hwJPEG
	}
	ph, err := phones.open(ctx, phone.Env{StateDir: *state, Logger: log})
	if err != nil {
		return err
	}
	defer ph.Close()
	sim := []control.Attached{{ID: "sim-1", Phone: ph}} // --sims
	for i := 2; i <= *sims; i++ {
		more, err := phones.open(ctx, phone.Env{StateDir: *state, Logger: log})
		if err != nil {
			return err
		}
		defer more.Close()
		sim = append(sim, control.Attached{ID: "sim-" + strconv.Itoa(i), Phone: more})
	}
	if *phones.name != "sim" {
		sim = nil // one phone of another backend: control names it
	}
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
		Phones:        sim,
		JPEG:          jpeg,
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
		ConnState:     c.ConnState,
	})
	if err != nil {
		return err
	}
	if *wifiF.iface != "" {
		return runWithSetupNet(ctx, box, wifiF, setupAt, front, ws, *state, c.Stdout, log)
	}
	return box.Run(ctx)
}

// maxSims is the most simulated phones serve --sims runs.
const maxSims = 32

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
