// Package android drives an Android phone over one USB cable with the box
// as the phone's USB host: ADB (package adb, the box's own host side) for
// screenshots, apps, launch, device info and the element tree, and AOA v2
// HID for touch and keys. This file set holds what the backend decodes
// from the phone; the backend itself lands on hw/phone's gesture player.
package android
