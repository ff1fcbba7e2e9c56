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
//   - [github.com/openlolo/openlolo/hw/coredevice/mediastream]: DisplayService's negotiator offer, stream start/stop and RTP/RTCP
//   - [github.com/openlolo/openlolo/hw/coredevice/remotehid]: universal HID reports and Indigo button events
//
// # Input on iOS 27+
//
// Touch, keys and buttons go to dtuhidd's universal HID service (the main
// touchscreen and a virtual keyboard the backend registers) and to
// Indigo. The phone passes them to UIKit only while this client runs a
// DisplayService media stream, so the backend starts one at the first
// input: a UDP receiver on the tunnel's gVisor stack, RTCP receiver
// reports every second (the phone's encoder stalls after about 25 s
// without), a new stream when the video stops, and a stop after a while
// without input. The video is counted, never decoded: screenshots stay on
// screencaptureservice. Gestures are played by phone.Player (the
// backend encodes each contact sample as a remote HID touch), buttons are
// held for phone's timing table, and events go out through a
// phone.Broadcaster. Below iOS 27, or without the developer disk
// image's services, input answers phone.ErrUnsupported naming the gadget
// backend.
//
// The wire facts come from public sources: go-ios and idevice (MIT) and
// appium-ios-remotexpc (Apache-2.0); byte vectors taken from them are
// attributed in each package's testdata/README.md.
package coredevice
