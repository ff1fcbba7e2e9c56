package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/openlolo/openlolo/hw/adb/adbtest"
	"github.com/openlolo/openlolo/hw/adb/adbusb"
	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/aoa/aoatest"
)

// The fake Android phone's identity on the bus.
const (
	fakeVendor  = 0x18d1 // Google
	fakeProduct = 0x4ee7 // a Pixel with USB debugging on
	fakeSerial  = "FAKEADB1"
)

// FunctionFS constants (linux/usb/functionfs.h).
const (
	ffsDescriptorsMagicV2 = 3
	ffsStringsMagic       = 2
	ffsHasFSDesc          = 1
	ffsHasHSDesc          = 2
	ffsAllCtrlRecip       = 64
	ffsEventSetup         = 4
	ffsEventSize          = 12
)

// fakeSpec is who a fake phone says it is on the bus, and its one
// interface's class, subclass and protocol.
type fakeSpec struct {
	name                        string // the gadget's and FunctionFS's name
	vendor, product             uint16
	serial, manufacturer, model string
	class, subClass, protocol   uint8
	iface                       string // the interface's string
}

// androidSpec is the fake Android phone: ADB's interface, ff/42/01.
var androidSpec = fakeSpec{name: "adb", vendor: fakeVendor, product: fakeProduct, serial: fakeSerial,
	manufacturer: "Google", model: "Fake Pixel", class: adbusb.Class, subClass: adbusb.SubClass, protocol: adbusb.Protocol, iface: "ADB Interface"}

// fakeAndroid is a phone on the other end of dummy_hcd: a configfs
// gadget with one FunctionFS function whose interface has a bulk IN and
// a bulk OUT endpoint (ADB's, served by adbtest, or usbmux's).
type fakeAndroid struct {
	gadget, mount string
	function      string // "ffs.<name>"
	ep0           int
	// ep1 and ep2 are os.Files, not descriptor numbers: Go keeps a
	// number open while a read or write on it is blocked and fails the
	// calls after Close, so a loop of this phone that wakes after close
	// cannot reach the next fake phone's endpoint under a reused number
	// (the re-plugged fake iPhone's bulk OUT once went unread so).
	ep1, ep2 *os.File
	mu       sync.Mutex
	requests []string // control requests seen on ep0
	// aoa is the phone's accessory function: AOA's vendor requests on
	// ep0 go to it, which keeps the HID devices the box registers and
	// decodes their reports.
	aoa  aoatest.Phone
	done chan struct{}
	// closed is set before close closes ep0: the control loop, woken
	// by the unplug, must not read again under a number the next fake
	// phone's ep0 may have taken.
	closed atomic.Bool
}

// ffsDescriptors builds the v2 descriptors blob for ep0: the interface
// and its two bulk endpoints at full and high speed, and the flag that
// routes vendor requests for the device to ep0.
func ffsDescriptors(spec fakeSpec) []byte {
	speed := func(maxPacket uint16) []byte {
		b := []byte{9, 4, 0, 0, 2, spec.class, spec.subClass, spec.protocol, 1}
		for _, addr := range []byte{0x81, 0x02} { // ep1 IN, ep2 OUT
			b = append(b, 7, 5, addr, 2)
			b = binary.LittleEndian.AppendUint16(b, maxPacket)
			b = append(b, 0)
		}
		return b
	}
	fs, hs := speed(64), speed(512)
	b := binary.LittleEndian.AppendUint32(nil, ffsDescriptorsMagicV2)
	b = binary.LittleEndian.AppendUint32(b, uint32(12+8+len(fs)+len(hs)))
	b = binary.LittleEndian.AppendUint32(b, ffsHasFSDesc|ffsHasHSDesc|ffsAllCtrlRecip)
	b = binary.LittleEndian.AppendUint32(b, 3) // descriptors per speed
	b = binary.LittleEndian.AppendUint32(b, 3)
	return append(append(b, fs...), hs...)
}

func ffsStrings(spec fakeSpec) []byte {
	str := spec.iface + "\x00"
	b := binary.LittleEndian.AppendUint32(nil, ffsStringsMagic)
	b = binary.LittleEndian.AppendUint32(b, uint32(16+2+len(str)))
	b = binary.LittleEndian.AppendUint32(b, 1) // strings
	b = binary.LittleEndian.AppendUint32(b, 1) // languages
	b = binary.LittleEndian.AppendUint16(b, 0x0409)
	return append(b, str...)
}

// freeUDC unbinds every configfs gadget from dummy_udc, so the fake
// phone can take it (the gadget checks leave the box's gadget bound).
func freeUDC() error {
	udcs, _ := filepath.Glob("/sys/kernel/config/usb_gadget/*/UDC")
	for _, f := range udcs {
		if b, _ := os.ReadFile(f); strings.TrimSpace(string(b)) != "" {
			if err := os.WriteFile(f, []byte("\n"), 0); err != nil {
				return fmt.Errorf("unbind %s: %w", f, err)
			}
		}
	}
	return nil
}

// startFakeAndroid sets the gadget up, binds it to dummy_udc and serves
// dev on it until ctx ends or the gadget is unbound.
func startFakeAndroid(ctx context.Context, dev *adbtest.Device) (*fakeAndroid, error) {
	f, err := startFake(androidSpec)
	if err != nil {
		return nil, err
	}
	rw := adbusb.NewTransport(adbusb.Pipe{
		In:          f.In,
		Out:         f.Out,
		MaxPacket:   512,
		MaxTransfer: 16 << 10,
	})
	go func() {
		defer close(f.done)
		dev.ServeConn(ctx, rw)
	}()
	return f, nil
}

// startFake sets a gadget up as spec says and binds it to dummy_udc;
// the caller serves its bulk endpoints (In, Out).
func startFake(spec fakeSpec) (*fakeAndroid, error) {
	if err := freeUDC(); err != nil {
		return nil, err
	}
	f := &fakeAndroid{gadget: "/sys/kernel/config/usb_gadget/fake" + spec.name, mount: "/dev/usb-ffs/" + spec.name, function: "ffs." + spec.name,
		ep0: -1, done: make(chan struct{})}
	g := f.gadget
	steps := []struct{ path, value string }{
		{g, ""},
		{g + "/idVendor", fmt.Sprintf("0x%04x", spec.vendor)},
		{g + "/idProduct", fmt.Sprintf("0x%04x", spec.product)},
		{g + "/strings/0x409", ""},
		{g + "/strings/0x409/serialnumber", spec.serial},
		{g + "/strings/0x409/manufacturer", spec.manufacturer},
		{g + "/strings/0x409/product", spec.model},
		{g + "/configs/c.1", ""},
		{g + "/functions/" + f.function, ""},
	}
	for _, s := range steps {
		var err error
		if s.value == "" {
			err = os.Mkdir(s.path, 0o755)
		} else {
			err = os.WriteFile(s.path, []byte(s.value), 0)
		}
		if err != nil {
			f.close()
			return nil, fmt.Errorf("gadget %s: %w", s.path, err)
		}
	}
	if err := os.Symlink(g+"/functions/"+f.function, g+"/configs/c.1/"+f.function); err != nil {
		f.close()
		return nil, fmt.Errorf("gadget link: %w", err)
	}
	if err := f.open(spec); err != nil {
		f.close()
		return nil, err
	}
	if err := os.WriteFile(g+"/UDC", []byte("dummy_udc.0"), 0); err != nil {
		f.close()
		return nil, fmt.Errorf("bind dummy_udc.0: %w", err)
	}
	go f.control()
	return f, nil
}

// In reads what the host sent on the bulk OUT endpoint.
func (f *fakeAndroid) In(_ context.Context, b []byte) (int, error) {
	return onFile(f.ep2, b, false)
}

// Out writes to the bulk IN endpoint for the host.
func (f *fakeAndroid) Out(_ context.Context, b []byte) (int, error) {
	return onFile(f.ep1, b, true)
}

// onFile runs a read or write on file's descriptor through its RawConn,
// which holds the number for the call and fails calls after Close; not
// os.File's Read and Write, which turn a zero-length packet into io.EOF
// or nothing.
func onFile(file *os.File, b []byte, write bool) (n int, err error) {
	rc, err := file.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cerr error
	if write {
		cerr = rc.Write(func(fd uintptr) bool { n, err = retryWrite(int(fd), b); return true })
	} else {
		cerr = rc.Read(func(fd uintptr) bool { n, err = retryRead(int(fd), b); return true })
	}
	if cerr != nil {
		return 0, cerr
	}
	return n, err
}

// Close unplugs the phone: its reads and writes fail.
func (f *fakeAndroid) Close() error { return f.unplug() }

// open mounts FunctionFS, writes ep0's descriptors and strings and opens
// the bulk endpoints' files.
func (f *fakeAndroid) open(spec fakeSpec) error {
	if err := os.MkdirAll(f.mount, 0o755); err != nil {
		return err
	}
	if err := unix.Mount(spec.name, f.mount, "functionfs", 0, ""); err != nil {
		return fmt.Errorf("mount functionfs: %w", err)
	}
	var err error
	if f.ep0, err = unix.Open(f.mount+"/ep0", unix.O_RDWR, 0); err != nil {
		return fmt.Errorf("open ep0: %w", err)
	}
	for _, b := range [][]byte{ffsDescriptors(spec), ffsStrings(spec)} {
		if _, err := unix.Write(f.ep0, b); err != nil {
			return fmt.Errorf("ep0 descriptors: %w", err)
		}
	}
	if f.ep1, err = os.OpenFile(f.mount+"/ep1", os.O_WRONLY, 0); err != nil {
		return fmt.Errorf("open ep1: %w", err)
	}
	if f.ep2, err = os.OpenFile(f.mount+"/ep2", os.O_RDONLY, 0); err != nil {
		return fmt.Errorf("open ep2: %w", err)
	}
	return nil
}

// control answers ep0's events: AOA's vendor requests go to the fake
// accessory function (hw/aoa/aoatest: GET_PROTOCOL answers version 2,
// REGISTER_HID, SET_HID_REPORT_DESC and SEND_HID_EVENT keep HID devices
// and their reports); what it refuses stalls where the request allows
// (an IN request, or an OUT request without data). Other requests that
// ask for data stall. Every request is recorded.
//
// The loop keeps its own thread with every signal blocked: FunctionFS
// ends an ep0 data or status stage that a signal interrupts with EINTR
// and takes its request off ep0, and a data stage the host already sent
// is then lost, so the host's transfer waits forever (Go signals its
// threads for preemption and the GC). Each stage is retried on EINTR
// besides.
func (f *fakeAndroid) control() {
	runtime.LockOSThread() // never unlocked: the thread ends with the loop
	var all unix.Sigset_t
	for i := range all.Val {
		all.Val[i] = ^uint64(0)
	}
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &all, nil); err != nil {
		fmt.Printf("guest: ep0: block signals: %v\n", err)
	}
	buf := make([]byte, 4*ffsEventSize)
	for {
		n, err := retryRead(f.ep0, buf)
		if err != nil || n == 0 || f.closed.Load() {
			return
		}
		for ev := buf[:n]; len(ev) >= ffsEventSize; ev = ev[ffsEventSize:] {
			if ev[8] != ffsEventSetup {
				continue
			}
			s := aoa.Setup{RequestType: ev[0], Request: ev[1], Value: binary.LittleEndian.Uint16(ev[2:]),
				Index: binary.LittleEndian.Uint16(ev[4:]), Length: binary.LittleEndian.Uint16(ev[6:])}
			seen := fmt.Sprintf("%02x/%d", s.RequestType, s.Request)
			switch {
			case s.RequestType == aoa.RequestIn:
				if reply, err := f.aoa.Handle(s, nil); err == nil {
					retryWrite(f.ep0, reply)
				} else {
					retryRead(f.ep0, nil) // the wrong direction stalls
				}
			case s.RequestType&0x80 != 0:
				retryRead(f.ep0, nil)
			case s.RequestType == aoa.RequestOut && s.Length == 0:
				if _, err := f.aoa.Handle(s, nil); err == nil {
					retryRead(f.ep0, nil) // the status stage
				} else {
					retryWrite(f.ep0, nil)
				}
			case s.RequestType == aoa.RequestOut: // with data: read (and acknowledged) first
				data := make([]byte, s.Length)
				n, _ := retryRead(f.ep0, data)
				data = data[:max(n, 0)]
				seen += fmt.Sprintf(" %q", data)
				f.aoa.Handle(s, data)
			default:
				retryWrite(f.ep0, nil)
			}
			f.mu.Lock()
			f.requests = append(f.requests, seen)
			f.mu.Unlock()
		}
	}
}

// seen returns the vendor control requests ep0 received, as
// "type/request" with an OUT request's data quoted.
func (f *fakeAndroid) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// unplug unbinds the gadget: the host sees the phone leave.
func (f *fakeAndroid) unplug() error {
	return os.WriteFile(f.gadget+"/UDC", []byte("\n"), 0)
}

// close unplugs the phone and removes the gadget.
func (f *fakeAndroid) close() {
	f.closed.Store(true)
	f.unplug()
	for _, ep := range []*os.File{f.ep1, f.ep2} {
		if ep != nil {
			ep.Close()
		}
	}
	if f.ep0 >= 0 {
		unix.Close(f.ep0)
	}
	unix.Unmount(f.mount, 0)
	g := f.gadget
	os.Remove(g + "/configs/c.1/" + f.function)
	for _, d := range []string{g + "/configs/c.1", g + "/functions/" + f.function, g + "/strings/0x409", g} {
		os.Remove(d)
	}
}

func retryRead(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

func retryWrite(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Write(fd, b)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}
