package usb

import (
	"errors"
	"fmt"
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Open opens a device node (a [DeviceInfo]'s Path) for transfers. A
// node the box may not write says what to do; a device unplugged since
// it was listed is [ErrDeviceGone].
func Open(path string) (*Device, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return nil, permissionError(path, err)
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENODEV):
		return nil, fmt.Errorf("usb: open %s: %w", path, ErrDeviceGone)
	case err != nil:
		return nil, fmt.Errorf("usb: open %s: %w", path, err)
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("usb: open %s: eventfd: %w", path, err)
	}
	return newDevice(path, &fdPort{fd: fd, efd: efd}), nil
}

// fdPort is a usbdevfs node.
type fdPort struct {
	fd, efd int
}

func (p *fdPort) ioctl(req uintptr, arg unsafe.Pointer) error {
	for {
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(p.fd), req, uintptr(arg))
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		return nil
	}
}

func (p *fdPort) submit(u *urb) error  { return p.ioctl(reqSubmitURB, unsafe.Pointer(u)) }
func (p *fdPort) discard(u *urb) error { return p.ioctl(reqDiscardURB, unsafe.Pointer(u)) }

func (p *fdPort) reap() (uintptr, error) {
	var addr uintptr
	err := p.ioctl(reqReapURBNDelay, unsafe.Pointer(&addr))
	return addr, err
}

// wait polls the node (usbdevfs signals POLLOUT when an URB completed,
// POLLHUP when the device left) and the eventfd wake writes to.
func (p *fdPort) wait() error {
	fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLOUT}, {Fd: int32(p.efd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if fds[1].Revents != 0 {
			return errWoken
		}
		if fds[0].Revents&unix.POLLNVAL != 0 {
			return errors.New("the node was closed")
		}
		if fds[0].Revents != 0 {
			return nil
		}
	}
}

func (p *fdPort) wake() {
	var one = [8]byte{1}
	unix.Write(p.efd, one[:])
}

func (p *fdPort) close() error {
	unix.Close(p.efd)
	return unix.Close(p.fd)
}
