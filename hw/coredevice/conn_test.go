package coredevice_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

const deviceinfo = "com.apple.coredevice.deviceinfo"

func fakePhone(t *testing.T, prompt func() string) (*coredevicetest.Phone, *coredevice.Dialer) {
	p := &coredevicetest.Phone{
		Prompt: prompt,
		Services: map[string]coredevicetest.Service{
			deviceinfo: {
				Features: []string{"com.apple.coredevice.feature.getdeviceinfo"},
				Handle: func(ctx context.Context, req xpc.Dict) (xpc.Dict, error) {
					return xpc.Dict{{Key: "CoreDevice.output", Value: xpc.Dict{{Key: "deviceName", Value: "Test iPhone"}}}}, nil
				},
			},
		},
	}
	mux := p.Start(t)
	d := &coredevice.Dialer{Mux: mux, Store: lockdown.Store{Dir: filepath.Join(t.TempDir(), "pair")}, PairInterval: time.Millisecond}
	return p, d
}

func TestDialPairsAndTunnels(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	asked := 0
	p, d := fakePhone(t, func() string {
		mu.Lock()
		defer mu.Unlock()
		if asked++; asked < 3 {
			return "PairingDialogResponsePending"
		}
		return ""
	})
	trusts := 0
	d.Trust = func(error) { trusts++ }
	c, err := d.Dial(ctx, p.Device)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	if trusts != 1 {
		t.Errorf("Trust called %d times, want 1", trusts)
	}
	if c.Info.ProductVersion != "27.0" || c.Info.ProductType != "iPhone17,1" || c.Info.DeviceName != "Test iPhone" {
		t.Errorf("Info = %+v", c.Info)
	}
	if c.Params.Address != coredevicetest.HostAddr || c.RSD.UDID != p.UDID || c.RSD.OSVersion != "27.0" {
		t.Errorf("tunnel %+v, RSD %+v", c.Params, c.RSD)
	}
	fi, err := os.Stat(filepath.Join(d.Store.Dir, p.UDID+".plist"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("pair record: %v, %v", fi, err)
	}
	if p.Mux.PairRecord(p.UDID) == nil {
		t.Error("usbmuxd was not given the pair record")
	}

	for range 2 {
		x, err := c.DialService(ctx, deviceinfo)
		if err != nil {
			t.Fatal(err)
		}
		reply, err := x.Request(ctx, xpc.Dict{{Key: "CoreDevice.featureIdentifier", Value: "com.apple.coredevice.feature.getdeviceinfo"}})
		x.Close()
		if err != nil || reply.Dict("CoreDevice.output").String("deviceName") != "Test iPhone" {
			t.Fatalf("deviceinfo = %#v, %v", reply, err)
		}
	}
	if got := p.RequestsPerConn(deviceinfo); !slices.Equal(got, []int{1, 1}) {
		t.Errorf("requests per connection %v, want one each", got)
	}
	if _, err := c.DialService(ctx, "com.apple.coredevice.screencaptureservice"); !errors.Is(err, coredevice.ErrNoService) {
		t.Errorf("DialService of a missing service = %v, want ErrNoService", err)
	}

	// A second dial uses the stored record: no new Pair request.
	pairs := func() int {
		n := 0
		for _, r := range p.Lockdown.Requests() {
			if r == "Pair" {
				n++
			}
		}
		return n
	}
	before := pairs()
	c2, err := d.Dial(ctx, p.Device)
	if err != nil {
		t.Fatalf("second Dial: %v", err)
	}
	c2.Close()
	if pairs() != before {
		t.Errorf("second Dial paired again")
	}

	// Unplugging drops the tunnel.
	p.Unplug()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("tunnel still up after unplugging")
	}
}

func TestDialRepairsForgottenHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	p, d := fakePhone(t, nil)
	c, err := d.Dial(ctx, p.Device)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	old, _ := d.Store.Load(p.UDID)
	p.Lockdown.Unpair()
	c, err = d.Dial(ctx, p.Device)
	if err != nil {
		t.Fatalf("Dial after the phone forgot us: %v", err)
	}
	c.Close()
	rec, _ := d.Store.Load(p.UDID)
	if rec.HostID == old.HostID {
		t.Error("the record was not replaced")
	}
}

func TestDialDenied(t *testing.T) {
	p, d := fakePhone(t, func() string { return "UserDeniedPairing" })
	_, err := d.Dial(t.Context(), p.Device)
	if !errors.Is(err, lockdown.ErrUserDenied) {
		t.Fatalf("Dial = %v, want ErrUserDenied", err)
	}
	if _, err := d.Store.Load(p.UDID); !errors.Is(err, lockdown.ErrNoRecord) {
		t.Errorf("a record was stored after a refusal: %v", err)
	}
}

func TestDialUsesUsbmuxdRecord(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	p, d := fakePhone(t, nil)
	c, err := d.Dial(ctx, p.Device)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	// A box whose state was wiped still finds usbmuxd's copy.
	d.Store = lockdown.Store{Dir: filepath.Join(t.TempDir(), "fresh")}
	p.Prompt = nil
	before := len(p.Lockdown.Requests())
	c, err = d.Dial(ctx, p.Device)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if slices.Contains(p.Lockdown.Requests()[before:], "Pair") {
		t.Error("paired again although usbmuxd had the record")
	}
	if _, err := d.Store.Load(p.UDID); err != nil {
		t.Errorf("usbmuxd's record was not copied to the store: %v", err)
	}
}
