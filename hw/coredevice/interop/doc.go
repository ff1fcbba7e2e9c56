// Package interop runs our CoreDevice protocol layers against go-ios
// v1.3.2 (https://github.com/danielpaulus/go-ios, MIT), an independent
// implementation: go-ios encodes what ours decodes and the reverse, and
// go-ios clients talk to our fake usbmuxd, lockdownd and RemoteXPC
// device. The HID and DisplayService messages, which v1.3.2 predates,
// are checked against go-ios master's request shapes through v1.3.2's
// XPC codec (hid_test.go says how), and the negotiator offer against
// howett.net/plist, the binary plist library go-ios uses. It is its own module so that the product never links go-ios;
// `make test-interop` runs it.
package interop
