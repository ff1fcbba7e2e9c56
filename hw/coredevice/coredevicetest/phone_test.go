package coredevicetest_test

import (
	"testing"

	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
)

// TestPorts: without a usbmuxd the fake phone answers lockdownd, the
// CoreDeviceProxy and AMFI's ports, and no other (a device side of usbmux
// refuses a nil handler's port).
func TestPorts(t *testing.T) {
	p := &coredevicetest.Phone{}
	accept := p.Ports()
	defer p.Stop()
	for _, c := range []struct {
		port uint16
		open bool
	}{{lockdown.Port, true}, {49152, true}, {49153, true}, {5555, false}, {58783, false}} {
		if got := accept(c.port) != nil; got != c.open {
			t.Errorf("port %d answered %v, want %v", c.port, got, c.open)
		}
	}
	if p.UDID == "" || p.Lockdown == nil || p.Lockdown.UDID != p.UDID {
		t.Errorf("Ports left the phone without its identity: UDID %q, lockdown %+v", p.UDID, p.Lockdown)
	}
}
