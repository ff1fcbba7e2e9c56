// Package interop runs our CoreDevice protocol layers against go-ios
// v1.3.2 (https://github.com/danielpaulus/go-ios, MIT), an independent
// implementation: go-ios encodes what ours decodes and the reverse, and
// go-ios clients talk to our fake usbmuxd, lockdownd and RemoteXPC
// device. It is its own module so that the product never links go-ios;
// `make test-interop` runs it.
package interop
