package sim

import (
	"flag"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/phone"
)

// TestParseDims is --sim-size's format check (moved here from
// cmd/openlolo with the flag).
func TestParseDims(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"1179x2556": "(1179,2556)", "300X600": "(300,600)"} {
		got, err := parseDims(in)
		if err != nil || got.String() != want {
			t.Errorf("parseDims(%q) = %v, %v, want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "100", "100x", "x100", "-1x5", "1.5x2", "100x200x3"} {
		if _, err := parseDims(in); err == nil {
			t.Errorf("parseDims(%q) succeeded", in)
		}
	}
}

func TestRegistration(t *testing.T) {
	t.Parallel()
	flags := func(args ...string) (phone.Opener, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		o := Registration(Options{}).Flags(fs)
		return o, fs.Parse(args)
	}
	if _, err := flags("--sim-size", "big"); err == nil || !strings.Contains(err.Error(), "WIDTHxHEIGHT") {
		t.Errorf("--sim-size big: %v, want a parse error naming WIDTHxHEIGHT", err)
	}
	o, err := flags("--sim-size", "300x600")
	if err != nil {
		t.Fatal(err)
	}
	for chosen, ok := range map[string]bool{"sim": true, "auto": true, "gadget": false} {
		if err := o.Check(chosen); (err == nil) != ok {
			t.Errorf("--sim-size with --phone %s: Check = %v", chosen, err)
		}
	}
	p, err := o.Auto(t.Context(), phone.Env{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := p.Info(); got.Backend != "sim" || got.Native.X != 300 {
		t.Errorf("opened %s %v, want sim 300 wide", got.Backend, got.Native)
	}
	o, _ = flags()
	if err := o.Check("gadget"); err != nil {
		t.Errorf("no --sim-size with --phone gadget: Check = %v", err)
	}
	o, _ = flags("--sim-size", "10x10")
	if _, err := o.Open(t.Context(), phone.Env{}); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("--sim-size 10x10: Open = %v, want out of range", err)
	}
}
