package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Linux input event codes the checks use.
const (
	evSyn = 0
	evKey = 1
	evRel = 2
	evAbs = 3

	keyLeftShift = 42
	keyH         = 35
	keyI         = 23
	key1         = 2
	keyA         = 30
	keyHomepage  = 172
	keyVolumeUp  = 115
	btnLeft      = 0x110
	btnTouch     = 0x14a

	absX   = 0x00
	absY   = 0x01
	absMTX = 0x35
	absMTY = 0x36
	relX   = 0x00
	relY   = 0x01

	inputPropDirect = 1
)

// event is one struct input_event (64-bit layout).
type event struct {
	Type  uint16
	Code  uint16
	Value int32
}

// evdev is an open /dev/input/eventN.
type evdev struct {
	f    *os.File
	path string
	sys  string // /sys/class/input/eventN
}

// findEvdev waits for the event node of USB interface iface of the
// gadget with that bcdDevice, as the same kernel's host side sees it.
func findEvdev(iface int, version uint16, timeout time.Duration) (*evdev, error) {
	want := fmt.Sprintf(":1.%d/", iface)
	var found *evdev
	waitFor(timeout, func() bool {
		nodes, _ := filepath.Glob("/sys/class/input/event*")
		for _, n := range nodes {
			real, err := filepath.EvalSymlinks(filepath.Join(n, "device"))
			if err != nil || !strings.Contains(real+"/", want) || !strings.Contains(real, "dummy_hcd") {
				continue
			}
			if usbDevice(real) != fmt.Sprintf("%04x", version) {
				continue
			}
			dev := "/dev/input/" + filepath.Base(n)
			f, err := os.OpenFile(dev, os.O_RDONLY, 0)
			if err != nil {
				continue
			}
			found = &evdev{f: f, path: dev, sys: n}
			return true
		}
		return false
	})
	if found == nil {
		return nil, fmt.Errorf("no input device for USB interface %d version %04x after %v", iface, version, timeout)
	}
	// real wait: usbhid submits its interrupt transfer only once the
	// node is open, and the kernel tells no one when it has.
	time.Sleep(150 * time.Millisecond)
	return found, nil
}

func (e *evdev) Close() { e.f.Close() }

// usbDevice returns the bcdDevice of the USB device above a sysfs path
// ("" when there is none: the device went away).
func usbDevice(p string) string {
	for ; p != "/" && p != "."; p = filepath.Dir(p) {
		if b, err := os.ReadFile(filepath.Join(p, "bcdDevice")); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	return ""
}

// read collects events until done returns true or timeout passes.
func (e *evdev) read(timeout time.Duration, done func([]event) bool) []event {
	var out []event
	e.f.SetReadDeadline(time.Now().Add(timeout))
	buf := make([]byte, 24*64)
	for !done(out) {
		n, err := e.f.Read(buf)
		if err != nil {
			break
		}
		for i := 0; i+24 <= n; i += 24 {
			out = append(out, event{
				Type:  binary.LittleEndian.Uint16(buf[i+16:]),
				Code:  binary.LittleEndian.Uint16(buf[i+18:]),
				Value: int32(binary.LittleEndian.Uint32(buf[i+20:])),
			})
		}
	}
	return out
}

// props reads the INPUT_PROP bitmap.
func (e *evdev) props() uint64 {
	b, _ := os.ReadFile(filepath.Join(e.sys, "device", "properties"))
	v, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 16, 64)
	return v
}

// driver names the HID driver bound to the device (hid-multitouch, …).
func (e *evdev) driver() string {
	real, _ := filepath.EvalSymlinks(filepath.Join(e.sys, "device", "device", "driver"))
	return filepath.Base(real)
}

// absMax reads an axis' maximum with EVIOCGABS.
func (e *evdev) absMax(code int) (int32, error) {
	var info [6]int32 // value, minimum, maximum, fuzz, flat, resolution
	req := uintptr(0x80184540 + code)
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, e.f.Fd(), req, uintptr(unsafe.Pointer(&info[0])))
	if errno != 0 {
		return 0, errno
	}
	if info[2] <= info[1] {
		return 0, errors.New("empty axis range")
	}
	return info[2], nil
}

// has reports whether evs holds (typ, code, value).
func has(evs []event, typ, code uint16, value int32) bool {
	for _, e := range evs {
		if e.Type == typ && e.Code == code && e.Value == value {
			return true
		}
	}
	return false
}

// last returns the last value of (typ, code).
func last(evs []event, typ, code uint16) (int32, bool) {
	v, ok := int32(0), false
	for _, e := range evs {
		if e.Type == typ && e.Code == code {
			v, ok = e.Value, true
		}
	}
	return v, ok
}

func describe(evs []event) string {
	var parts []string
	for _, e := range evs {
		if e.Type == evSyn {
			continue
		}
		parts = append(parts, fmt.Sprintf("%d/%d=%d", e.Type, e.Code, e.Value))
	}
	return strings.Join(parts, " ")
}
