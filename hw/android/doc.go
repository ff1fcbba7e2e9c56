// Package android drives an Android phone with the box as the phone's
// ADB host (package adb, the box's own host side; no adb server): raw
// screencap screenshots, touch, text, keys and buttons through the
// shell's `input` command, launcher apps, launch by package, URLs of any
// scheme, device info from getprop, the clipboard where the phone's
// shell has one, and the screen's elements from uiautomator.
//
// [Backend] takes its transport as a [Dialer] (TCP to a phone in
// `adb tcpip` mode: [TCP]; the USB ADB interface plugs in the same way)
// and, optionally, a faster input path as a phone.Input (AOA HID on the
// same cable, hw/aoa), falling back to the shell's `input` where that
// path refuses; every input's Report.Via names the path that ran.
//
// The box's ADB key is made once in the state directory ([KeyFile]).
// Until the phone allows it the backend's state is pairing with the
// problem adb_not_allowed and the key's fingerprint in its reason; the
// backend dials again on a backoff and goes on by itself once allowed.
package android
