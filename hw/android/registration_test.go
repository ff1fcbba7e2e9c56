package android_test

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/android"
	"github.com/openlolo/openlolo/hw/phone"
)

func TestRegistration(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) phone.Opener {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		o := android.Registration(android.Options{}).Flags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return o
	}
	env := phone.Env{StateDir: t.TempDir()}
	o := parse()
	if err := o.Check("sim"); err != nil {
		t.Errorf("no --adb with --phone sim: %v", err)
	}
	if _, err := o.Auto(t.Context(), env); !errors.Is(err, phone.ErrUnavailable) {
		t.Errorf("auto without --adb = %v, want ErrUnavailable", err)
	}
	if _, err := o.Open(t.Context(), env); err == nil || !strings.Contains(err.Error(), "--adb HOST:PORT") {
		t.Errorf("--phone android without --adb = %v", err)
	}
	if err := parse("--adb", "10.0.0.2:5555").Check("sim"); err == nil || !strings.Contains(err.Error(), "--adb is for --phone android") {
		t.Errorf("--adb with --phone sim: %v", err)
	}
	if err := parse("--adb", "10.0.0.2").Check("android"); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Errorf("--adb without a port: %v", err)
	}
	f := startPhone(t, nil, true)
	o = parse("--adb", f.Addr)
	if err := o.Check("auto"); err != nil {
		t.Fatal(err)
	}
	p, err := o.Auto(t.Context(), env)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitState(t, p.(*android.Backend), api.StateReady)
}
