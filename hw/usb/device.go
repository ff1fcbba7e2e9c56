package usb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Errors a transfer or an operation on a [Device] wraps.
var (
	// ErrDeviceGone means the device was unplugged (or reset into a new
	// address): reopen it from a fresh listing.
	ErrDeviceGone = errors.New("usb: the device is gone (unplugged or re-enumerated)")
	// ErrClosed means the Device was closed.
	ErrClosed = errors.New("usb: device closed")
	// ErrStall means the endpoint stalled (a control request the device
	// refuses, or a halted bulk endpoint: see [Device.ClearHalt]).
	ErrStall = errors.New("usb: the endpoint stalled")
	// ErrOverflow means the device sent more than the buffer holds.
	ErrOverflow = errors.New("usb: the device sent more data than the buffer holds")
)

// URB types and flags (linux/usbdevice_fs.h).
const (
	urbTypeControl = 2
	urbTypeBulk    = 3
)

// urb is struct usbdevfs_urb; Go lays it out as C does on 32- and 64-bit
// Linux (the iso frame array at its end is empty).
type urb struct {
	Type         uint8
	Endpoint     uint8
	Status       int32
	Flags        uint32
	Buffer       unsafe.Pointer
	BufferLength int32
	ActualLength int32
	StartFrame   int32
	NumPackets   int32
	ErrorCount   int32
	Signr        uint32
	UserContext  unsafe.Pointer
}

// usbIoctl is struct usbdevfs_ioctl: an ioctl for an interface's driver.
type usbIoctl struct {
	Ifno int32
	Code int32
	Data unsafe.Pointer
}

// usbdevfs ioctl numbers: the generic _IOC encoding (arm, arm64, x86).
const (
	iocNone  = 0
	iocWrite = 1
	iocRead  = 2

	reqSetConfiguration = iocRead<<30 | 4<<16 | 'U'<<8 | 5
	reqSubmitURB        = iocRead<<30 | unsafe.Sizeof(urb{})<<16 | 'U'<<8 | 10
	reqDiscardURB       = iocNone<<30 | 'U'<<8 | 11
	reqReapURBNDelay    = iocWrite<<30 | unsafe.Sizeof(uintptr(0))<<16 | 'U'<<8 | 13
	reqClaimInterface   = iocRead<<30 | 4<<16 | 'U'<<8 | 15
	reqReleaseInterface = iocRead<<30 | 4<<16 | 'U'<<8 | 16
	reqSetInterface     = iocRead<<30 | 8<<16 | 'U'<<8 | 4
	reqIoctl            = (iocRead|iocWrite)<<30 | unsafe.Sizeof(usbIoctl{})<<16 | 'U'<<8 | 18
	reqReset            = iocNone<<30 | 'U'<<8 | 20
	reqClearHalt        = iocRead<<30 | 4<<16 | 'U'<<8 | 21
	reqDisconnect       = iocNone<<30 | 'U'<<8 | 22
)

// port is the kernel side of an open device node: the real usbdevfs
// file, or a fake in tests.
type port interface {
	// ioctl runs a synchronous ioctl.
	ioctl(req uintptr, arg unsafe.Pointer) error
	// submit hands an URB to the kernel; discard cancels it (it is
	// still reaped, with status -ENOENT).
	submit(u *urb) error
	discard(u *urb) error
	// reap returns the address of a completed URB without blocking:
	// EAGAIN when none is done, ENODEV once the device is gone and
	// every URB was reaped.
	reap() (uintptr, error)
	// wait blocks until an URB may be reaped or the device went away;
	// it returns errWoken after wake.
	wait() error
	wake()
	close() error
}

// errWoken ends the reaper when the Device closes.
var errWoken = errors.New("usb: woken")

// pending is one URB in flight.
type pending struct {
	u    *urb
	buf  []byte // kept alive while the kernel may copy into it
	done chan struct{}
	err  error // set before done closes when the device failed
}

// Device is an open USB device. Its methods may be called from several
// goroutines at once (a reader and a writer on two endpoints).
type Device struct {
	path string
	port port

	mu      sync.Mutex
	pending map[uintptr]*pending
	claimed map[uint8]bool
	err     error         // set once: ErrClosed, ErrDeviceGone or a poll failure
	failed  chan struct{} // closed when err is set

	reaped chan struct{} // closed when the reaper returns
	once   sync.Once
}

// newDevice starts the reaper on p.
func newDevice(path string, p port) *Device {
	d := &Device{path: path, port: p, pending: map[uintptr]*pending{}, claimed: map[uint8]bool{}, reaped: make(chan struct{}), failed: make(chan struct{})}
	go d.reap()
	return d
}

// Path is the device node the Device was opened from.
func (d *Device) Path() string { return d.path }

// reap delivers completed URBs to the transfers waiting for them.
func (d *Device) reap() {
	defer close(d.reaped)
	for {
		if err := d.port.wait(); err != nil {
			if !errors.Is(err, errWoken) {
				d.fail(fmt.Errorf("usb: %s: poll: %w", d.path, err))
			}
			return
		}
		for {
			addr, err := d.port.reap()
			if errors.Is(err, syscall.EAGAIN) {
				break
			}
			if err != nil {
				d.fail(d.wrap("reap", err))
				return
			}
			d.mu.Lock()
			p := d.pending[addr]
			delete(d.pending, addr)
			d.mu.Unlock()
			if p != nil {
				close(p.done)
			}
		}
	}
}

// fail ends every transfer in flight with err (the first error wins).
func (d *Device) fail(err error) {
	d.mu.Lock()
	if d.err == nil {
		d.err = err
		close(d.failed)
	}
	err = d.err
	waiting := d.pending
	d.pending = map[uintptr]*pending{}
	d.mu.Unlock()
	for _, p := range waiting {
		p.err = err
		close(p.done)
	}
}

// wrap names the operation and turns errno values into the package's
// errors: ENODEV is [ErrDeviceGone], EACCES says what to do.
func (d *Device) wrap(op string, err error) error {
	switch {
	case errors.Is(err, syscall.ENODEV), errors.Is(err, syscall.ESHUTDOWN):
		return fmt.Errorf("usb: %s %s: %w", op, d.path, ErrDeviceGone)
	case errors.Is(err, syscall.EPIPE):
		return fmt.Errorf("usb: %s %s: %w", op, d.path, ErrStall)
	case errors.Is(err, fs.ErrPermission):
		return permissionError(d.path, err)
	}
	return fmt.Errorf("usb: %s %s: %w", op, d.path, err)
}

// permissionError says how to give the box the device node.
func permissionError(path string, err error) error {
	return fmt.Errorf("usb: %s: %w: the box needs read and write access to the device node; run it as root, or add a udev rule such as SUBSYSTEM==\"usb\", MODE=\"0660\", GROUP=\"plugdev\" and run it in that group", path, err)
}

// transfer submits one URB and waits for it or for ctx. When ctx ends
// first, the URB is discarded and the transfer returns ctx's error with
// the bytes moved before the cancel.
func (d *Device) transfer(ctx context.Context, op string, typ, endpoint uint8, buf []byte) (int, error) {
	u := &urb{Type: typ, Endpoint: endpoint, BufferLength: int32(len(buf))}
	if len(buf) > 0 {
		u.Buffer = unsafe.Pointer(&buf[0])
	}
	p := &pending{u: u, buf: buf, done: make(chan struct{})}
	addr := uintptr(unsafe.Pointer(u))
	d.mu.Lock()
	if d.err != nil {
		err := d.err
		d.mu.Unlock()
		return 0, err
	}
	d.pending[addr] = p
	d.mu.Unlock()
	if err := d.port.submit(u); err != nil {
		d.mu.Lock()
		delete(d.pending, addr)
		d.mu.Unlock()
		return 0, d.wrap(op, err)
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		d.port.discard(u) // EINVAL if it completed meanwhile: reaped anyway
		<-p.done
	}
	runtime.KeepAlive(buf)
	if p.err != nil {
		return 0, p.err
	}
	n := int(u.ActualLength)
	switch errno := syscall.Errno(-u.Status); {
	case u.Status == 0:
		return n, nil
	case (errno == syscall.ENOENT || errno == syscall.ECONNRESET) && ctx.Err() != nil:
		return n, fmt.Errorf("usb: %s %s: %w", op, d.path, context.Cause(ctx))
	case errno == syscall.EOVERFLOW:
		return n, fmt.Errorf("usb: %s %s: %w", op, d.path, ErrOverflow)
	case (errno == syscall.EPROTO || errno == syscall.EILSEQ || errno == syscall.ETIME) && d.gone():
		return n, fmt.Errorf("usb: %s %s: %w (%w)", op, d.path, ErrDeviceGone, errno)
	default:
		return n, d.wrap(op, errno)
	}
}

// disconnectGrace is how long a transfer that failed as unplugging
// fails it (a protocol error, a timeout on the wire) waits for the node
// to tell whether the device left.
const disconnectGrace = 500 * time.Millisecond

// gone reports whether the device is found gone within disconnectGrace:
// the host controller ends transfers in flight before the kernel marks
// the device disconnected, so their status alone cannot tell.
func (d *Device) gone() bool {
	t := time.NewTimer(disconnectGrace)
	defer t.Stop()
	select {
	case <-d.failed:
		return errors.Is(d.state(), ErrDeviceGone)
	case <-t.C:
		return false
	}
}

// Control runs a control transfer on endpoint 0: requestType's bit 7
// set (device to host) fills data, clear sends it. It returns the bytes
// moved. A request the device refuses is [ErrStall].
func (d *Device) Control(ctx context.Context, requestType, request uint8, value, index uint16, data []byte) (int, error) {
	if len(data) > 0xffff {
		return 0, fmt.Errorf("usb: control request %d: %d bytes (at most 65535)", request, len(data))
	}
	buf := make([]byte, 8+len(data))
	buf[0], buf[1] = requestType, request
	binary.LittleEndian.PutUint16(buf[2:], value)
	binary.LittleEndian.PutUint16(buf[4:], index)
	binary.LittleEndian.PutUint16(buf[6:], uint16(len(data)))
	in := requestType&0x80 != 0
	if !in {
		copy(buf[8:], data)
	}
	n, err := d.transfer(ctx, fmt.Sprintf("control request %d on", request), urbTypeControl, 0, buf)
	n = min(n, len(data))
	if in {
		copy(data, buf[8:8+n])
	}
	return n, err
}

// Bulk runs one bulk transfer on endpoint (bit 7 set: IN, the device
// fills buf; clear: OUT, buf is sent). It returns the bytes moved; an
// IN transfer ends early at a short packet. An empty OUT transfer sends
// a zero-length packet.
func (d *Device) Bulk(ctx context.Context, endpoint uint8, buf []byte) (int, error) {
	return d.transfer(ctx, fmt.Sprintf("bulk transfer on endpoint 0x%02x of", endpoint), urbTypeBulk, endpoint, buf)
}

// ioctl runs a synchronous ioctl with one unsigned int argument.
func (d *Device) ioctlUint(op string, req uintptr, v uint32) error {
	if err := d.state(); err != nil {
		return err
	}
	if err := d.port.ioctl(req, unsafe.Pointer(&v)); err != nil {
		return d.wrap(op, err)
	}
	return nil
}

func (d *Device) state() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// SetConfiguration selects a configuration (its Value). It fails with
// EBUSY while an interface is claimed.
func (d *Device) SetConfiguration(value uint8) error {
	return d.ioctlUint(fmt.Sprintf("set configuration %d on", value), reqSetConfiguration, uint32(value))
}

// Claim claims an interface for the box, detaching the kernel driver
// bound to it, if any.
func (d *Device) Claim(iface uint8) error {
	op := fmt.Sprintf("claim interface %d of", iface)
	err := d.ioctlUint(op, reqClaimInterface, uint32(iface))
	if errors.Is(err, syscall.EBUSY) {
		io := usbIoctl{Ifno: int32(iface), Code: reqDisconnect}
		if derr := d.port.ioctl(reqIoctl, unsafe.Pointer(&io)); derr != nil && !errors.Is(derr, syscall.ENODATA) {
			return d.wrap(fmt.Sprintf("detach the kernel driver of interface %d of", iface), derr)
		}
		err = d.ioctlUint(op, reqClaimInterface, uint32(iface))
	}
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.claimed[iface] = true
	d.mu.Unlock()
	return nil
}

// Release gives a claimed interface back.
func (d *Device) Release(iface uint8) error {
	d.mu.Lock()
	delete(d.claimed, iface)
	d.mu.Unlock()
	return d.ioctlUint(fmt.Sprintf("release interface %d of", iface), reqReleaseInterface, uint32(iface))
}

// SetAlternate selects an alternate setting of a claimed interface.
func (d *Device) SetAlternate(iface, alt uint8) error {
	if err := d.state(); err != nil {
		return err
	}
	v := [2]uint32{uint32(iface), uint32(alt)}
	if err := d.port.ioctl(reqSetInterface, unsafe.Pointer(&v)); err != nil {
		return d.wrap(fmt.Sprintf("set alternate %d of interface %d of", alt, iface), err)
	}
	return nil
}

// ClearHalt clears a stalled endpoint.
func (d *Device) ClearHalt(endpoint uint8) error {
	return d.ioctlUint(fmt.Sprintf("clear halt on endpoint 0x%02x of", endpoint), reqClearHalt, uint32(endpoint))
}

// Reset resets the device on its port. The device may come back at a
// new address, in which case this Device answers [ErrDeviceGone] from
// then on.
func (d *Device) Reset() error {
	if err := d.state(); err != nil {
		return err
	}
	if err := d.port.ioctl(reqReset, nil); err != nil {
		return d.wrap("reset", err)
	}
	return nil
}

// Close ends every transfer in flight with [ErrClosed], releases the
// claimed interfaces and closes the node. It is safe to call twice.
func (d *Device) Close() error {
	var err error
	d.once.Do(func() {
		d.port.wake()
		<-d.reaped
		d.mu.Lock()
		ifaces := d.claimed
		d.claimed = map[uint8]bool{}
		gone := d.err != nil
		d.mu.Unlock()
		if !gone {
			for i := range ifaces {
				v := uint32(i)
				d.port.ioctl(reqReleaseInterface, unsafe.Pointer(&v))
			}
		}
		err = d.port.close()
		d.fail(ErrClosed)
	})
	return err
}

// Pipe is a claimed interface's bulk endpoint pair: the shape the ADB
// and usbmux transports take (muxusb.Pipe).
type Pipe struct {
	Device                  *Device
	InEndpoint, OutEndpoint uint8 // addresses, InEndpoint with bit 7 set
}

// In runs one bulk IN transfer into b (see [Device.Bulk]).
func (p Pipe) In(ctx context.Context, b []byte) (int, error) {
	return p.Device.Bulk(ctx, p.InEndpoint, b)
}

// Out runs one bulk OUT transfer of b; an empty b is a zero-length
// packet.
func (p Pipe) Out(ctx context.Context, b []byte) (int, error) {
	return p.Device.Bulk(ctx, p.OutEndpoint, b)
}

// Close closes the device: transfers in flight end with [ErrClosed].
func (p Pipe) Close() error { return p.Device.Close() }
