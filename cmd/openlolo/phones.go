package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/hw/android"
	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/gadget"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

// phoneBackends is the table of phone backends serve can open, in the
// order --phone auto tries them. A new backend is its package plus one
// line here.
func phoneBackends() []phone.Registration {
	return []phone.Registration{
		android.Registration(android.Options{}),
		coredevice.Registration(coredevice.Options{}),
		gadget.Registration(gadget.Options{DecodeJPEG: picture.DecodeJPEG}), // libjpeg-turbo's in the box's build
		sim.Registration(sim.Options{}),
	}
}

// phoneFlags are --phone and the flags of every backend in a table.
type phoneFlags struct {
	name    *string
	table   []phone.Registration
	openers []phone.Opener
}

// addPhoneFlags adds --phone (default def) and each backend's own flags
// to fs.
func addPhoneFlags(fs *flag.FlagSet, def string, table []phone.Registration) *phoneFlags {
	pf := &phoneFlags{table: table}
	var help, auto []string
	for _, b := range table {
		help = append(help, fmt.Sprintf("%s (%s)", b.Name, b.Help))
		auto = append(auto, strings.TrimSpace(b.Name+" "+b.AutoHelp))
		pf.openers = append(pf.openers, b.Flags(fs))
	}
	pf.name = fs.String("phone", def, fmt.Sprintf("phone backend: %s or auto (%s)", strings.Join(help, ", "), strings.Join(auto, ", else ")))
	return pf
}

// check refuses an unknown --phone and flags that do not fit it.
func (pf *phoneFlags) check() error {
	known := *pf.name == "auto"
	var names []string
	for i, b := range pf.table {
		known = known || b.Name == *pf.name
		names = append(names, b.Name)
		if c := pf.openers[i].Check; c != nil {
			if err := c(*pf.name); err != nil {
				return usagef("%v", err)
			}
		}
	}
	if !known {
		return usagef("--phone %q is not a backend: use %s or auto", *pf.name, strings.Join(names, ", "))
	}
	return nil
}

// open opens the backend --phone names; auto takes the first in the
// table whose phone is there.
func (pf *phoneFlags) open(ctx context.Context, env phone.Env) (phone.Phone, error) {
	if err := pf.check(); err != nil {
		return nil, err
	}
	log := env.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for i, b := range pf.table {
		env := phone.Env{StateDir: env.StateDir, Logger: log.With("phone", b.Name)}
		o := pf.openers[i]
		switch {
		case *pf.name == b.Name:
			return o.Open(ctx, env)
		case *pf.name != "auto" || o.Auto == nil:
			continue
		}
		p, err := o.Auto(ctx, env)
		if err == nil || !errors.Is(err, phone.ErrUnavailable) {
			return p, err
		}
		log.Info("--phone auto: its phone is not here; trying the next backend", "backend", b.Name, "why", err)
	}
	return nil, fmt.Errorf("--phone %s: no backend found its phone", *pf.name)
}
