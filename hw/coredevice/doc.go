// Package coredevice drives an iPhone over one USB cable through Apple's
// CoreDevice services, as Xcode's devicectl does: usbmuxd, lockdown with a
// pair record, the CoreDeviceProxy packet tunnel, RSD and the RemoteXPC
// services (screenshots, apps, pasteboard, HID on iOS 27+).
//
// The protocol layers live in their own packages, each pure and tested
// without a phone:
//
//   - [github.com/openlolo/openlolo/hw/coredevice/plist]: XML property lists
//   - [github.com/openlolo/openlolo/hw/coredevice/usbmux]: the usbmuxd socket protocol
//   - [github.com/openlolo/openlolo/hw/coredevice/lockdown]: lockdownd sessions and pairing
//   - [github.com/openlolo/openlolo/hw/coredevice/xpc]: the XPC object codec
//   - [github.com/openlolo/openlolo/hw/coredevice/remotexpc]: XPC over HTTP/2 framing
//   - [github.com/openlolo/openlolo/hw/coredevice/cdtunnel]: the CoreDeviceProxy tunnel handshake and packet framing
//
// The wire facts come from public sources: go-ios and idevice (MIT) and
// appium-ios-remotexpc (Apache-2.0); byte vectors taken from them are
// attributed in each package's testdata/README.md.
package coredevice
