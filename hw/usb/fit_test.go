package usb_test

import (
	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb"
	"github.com/openlolo/openlolo/hw/usb"
)

// The layers above take hw/usb's types as they are.
var (
	_ aoa.Controller = (*usb.Device)(nil)
	_ muxusb.Pipe    = usb.Pipe{}
)
