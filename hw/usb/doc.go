// Package usb makes the box a USB host over Linux usbdevfs, with no
// libusb and no cgo: it lists the devices on the host ports from sysfs,
// watches them come and go, opens one through /dev/bus/usb, claims its
// interfaces and moves control and bulk transfers that stop when their
// context ends.
//
// # Finding devices
//
// A [Bus] names the sysfs folder (/sys/bus/usb/devices) and the device
// nodes (/dev/bus/usb); tests point both at a fake tree. [Bus.Devices]
// reads each device's attributes and parses its binary `descriptors`
// file into [Config], [Interface] and [Endpoint] values, so a caller
// finds an interface by class (ADB is ff/42/01, usbmux ff/fe/02) with
// [DeviceInfo.Find]. [Bus.Watch] reports arrivals and departures.
//
// # Transfers
//
// [Open] opens a device node. Every transfer, control included, is an
// asynchronous URB (USBDEVFS_SUBMITURB) reaped by one goroutine that
// polls the node; when a transfer's context ends first, the URB is
// discarded (USBDEVFS_DISCARDURB) and the transfer returns the
// context's error, so a deadline truly stops it. A device that was
// unplugged answers [ErrDeviceGone].
package usb
