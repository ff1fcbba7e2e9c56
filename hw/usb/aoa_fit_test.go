package usb_test

import (
	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/usb"
)

var _ aoa.Controller = (*usb.Device)(nil)
