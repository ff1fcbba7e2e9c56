// Package usbmux speaks the usbmuxd socket protocol: list the attached
// iOS devices, watch them come and go, read the pair records usbmuxd
// keeps, and open a byte stream to a TCP port on a device.
//
// Every message is a 16-byte little-endian header (total length, version
// 1, message type 8 = plist, tag) and an XML property list with
// MessageType plus the client's name. Each request uses its own socket;
// after a successful Connect the socket is a raw pipe to the device port.
package usbmux
