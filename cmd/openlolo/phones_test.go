package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

// fakeBackend is a registration whose auto answer is given: a phone
// (the simulated one), absent (ErrUnavailable) or a failure.
func fakeBackend(name string, auto error, opened *[]string) phone.Registration {
	return phone.Registration{Name: name, Help: "a " + name, AutoHelp: "if " + name + " is there", Flags: func(*flag.FlagSet) phone.Opener {
		open := func(context.Context, phone.Env) (phone.Phone, error) {
			*opened = append(*opened, name)
			return sim.New(sim.Options{})
		}
		return phone.Opener{Open: open, Auto: func(ctx context.Context, env phone.Env) (phone.Phone, error) {
			if auto != nil {
				*opened = append(*opened, name+" (not)")
				return nil, auto
			}
			return open(ctx, env)
		}}
	}}
}

func TestPhoneTable(t *testing.T) {
	t.Parallel()
	absent := fmt.Errorf("%w: nothing on the port", phone.ErrUnavailable)
	broken := errors.New("the port is on fire")
	tests := []struct {
		name       string
		phone      string
		autos      []error // per backend a, b: nil = its phone is there
		wantOpened string
		wantErr    string
	}{
		{"named", "b", []error{nil, nil}, "b", ""},
		{"auto takes the first that is there", "auto", []error{absent, nil}, "a (not),b", ""},
		{"auto stops on a failure", "auto", []error{broken, nil}, "a (not)", "on fire"},
		{"auto finds nothing", "auto", []error{absent, absent}, "a (not),b (not)", "no backend found its phone"},
		{"unknown", "c", []error{nil, nil}, "", `--phone "c" is not a backend: use a, b or auto`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opened []string
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			pf := addPhoneFlags(fs, tt.phone, []phone.Registration{fakeBackend("a", tt.autos[0], &opened), fakeBackend("b", tt.autos[1], &opened)})
			p, err := pf.open(t.Context(), phone.Env{})
			if p != nil {
				p.Close()
			}
			if got := strings.Join(opened, ","); got != tt.wantOpened {
				t.Errorf("opened %q, want %q", got, tt.wantOpened)
			}
			if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("open = %v, want an error with %q", err, tt.wantErr)
			}
		})
	}
}

// TestPhoneFlagHelp: --phone's usage comes from the table.
func TestPhoneFlagHelp(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addPhoneFlags(fs, "sim", phoneBackends())
	want := "phone backend: android (an Android phone over ADB), coredevice (an iPhone on a USB port), gadget (USB gadget + capture), sim (a simulated iPhone) or auto (android if --adb is given or a phone with USB debugging is on a host port, else coredevice if an iPhone is on a USB port, else gadget if the board can be one, else sim)"
	if got := fs.Lookup("phone").Usage; got != want {
		t.Errorf("--phone usage\n%s\nwant\n%s", got, want)
	}
	for _, f := range []string{"sim-size", "platform", "udc", "video", "usbmuxd", "adb"} {
		if fs.Lookup(f) == nil {
			t.Errorf("no --%s: the backends' flags are missing", f)
		}
	}
}
