// Package lockdown talks to lockdownd, the service broker on every iOS
// device (port 62078 through usbmux): query values, pair (the phone asks
// "Trust This Computer?"), start a TLS session with the pair record, and
// start services such as CoreDeviceProxy.
//
// Messages are XML property lists behind a 4-byte big-endian length.
// Requests carry Label, Request and ProtocolVersion "2"; a reply with an
// Error key is returned as an [*Error].
package lockdown
