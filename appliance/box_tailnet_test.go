package appliance

import (
	"context"
	"image"
	"path/filepath"
	"testing"

	"github.com/openlolo/openlolo/hw/sim"
)

// The Settings switch is kept in the store and wins over Config.Tailnet
// at the next start; without a choice, Config.Tailnet decides.
func TestRemoteSwitchPersists(t *testing.T) {
	t.Parallel()
	ph, err := sim.New(sim.Options{Size: image.Pt(300, 600)})
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	dir := filepath.Join(t.TempDir(), "state")
	open := func(flag bool) *Box {
		t.Helper()
		b, err := New(context.Background(), Config{StateDir: dir, Name: "openlolo-sw01", Phone: ph, LANAddr: "127.0.0.1:0", Tailnet: flag})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	steps := []struct {
		name   string
		flag   bool
		set    *bool // the owner's choice made on this run
		wantOn bool
	}{
		{"flag off, no choice", false, nil, false},
		{"flag on, no choice", true, ptr(false), true},
		{"flag on, owner chose off", true, ptr(true), false},
		{"flag off, owner chose on", false, nil, true},
	}
	for _, s := range steps {
		b := open(s.flag)
		v := b.remote.TailnetStatus()
		if v.Enabled != s.wantOn {
			t.Errorf("%s: enabled %v, want %v (%+v)", s.name, v.Enabled, s.wantOn, v)
		}
		if !s.wantOn && v.State != "off" {
			t.Errorf("%s: state %q, want off", s.name, v.State)
		}
		if s.set != nil {
			if err := b.remote.SetTailnet(context.Background(), *s.set); err != nil {
				t.Fatalf("%s: SetTailnet: %v", s.name, err)
			}
			if got := b.remote.TailnetStatus().Enabled; got != *s.set {
				t.Errorf("%s: after SetTailnet(%v) enabled %v", s.name, *s.set, got)
			}
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func ptr[T any](v T) *T { return &v }
