package usb

import (
	"sync"
	"syscall"
	"unsafe"
)

// fakePort is the kernel side of a device node in tests: submitted URBs
// arrive on its channel and the test completes them.
type fakePort struct {
	submitted chan *urb
	notify    chan struct{}
	woken     chan struct{}
	broken    chan error // a poll failure

	mu       sync.Mutex
	inFlight map[*urb]bool
	done     []uintptr
	gone     bool
	ioctls   []uintptr
	ioctlErr map[uintptr][]error // answered in order, then nil
	closed   bool
}

func newFakePort() *fakePort {
	return &fakePort{
		submitted: make(chan *urb, 8), notify: make(chan struct{}, 1), woken: make(chan struct{}), broken: make(chan error),
		inFlight: map[*urb]bool{}, ioctlErr: map[uintptr][]error{},
	}
}

func (p *fakePort) ioctl(req uintptr, arg unsafe.Pointer) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ioctls = append(p.ioctls, req)
	if errs := p.ioctlErr[req]; len(errs) > 0 {
		p.ioctlErr[req] = errs[1:]
		return errs[0]
	}
	if p.gone {
		return syscall.ENODEV
	}
	return nil
}

func (p *fakePort) submit(u *urb) error {
	p.mu.Lock()
	if p.gone {
		p.mu.Unlock()
		return syscall.ENODEV
	}
	p.inFlight[u] = true
	p.mu.Unlock()
	p.submitted <- u
	return nil
}

func (p *fakePort) discard(u *urb) error {
	p.mu.Lock()
	ok := p.inFlight[u]
	p.mu.Unlock()
	if !ok {
		return syscall.EINVAL
	}
	p.complete(u, -int32(syscall.ENOENT), nil)
	return nil
}

// complete finishes an URB as the kernel would: IN data copied into its
// buffer, the status and length set, then reapable.
func (p *fakePort) complete(u *urb, status int32, data []byte) {
	p.mu.Lock()
	if !p.inFlight[u] {
		p.mu.Unlock()
		return
	}
	delete(p.inFlight, u)
	if u.Buffer != nil && status == 0 {
		buf := unsafe.Slice((*byte)(u.Buffer), u.BufferLength)
		in, off := u.Endpoint&0x80 != 0, 0
		if u.Type == urbTypeControl {
			in, off = buf[0]&0x80 != 0, 8
		}
		if in {
			u.ActualLength = int32(copy(buf[off:], data))
		} else {
			u.ActualLength = int32(len(buf) - off)
		}
	}
	u.Status = status
	p.done = append(p.done, uintptr(unsafe.Pointer(u)))
	p.mu.Unlock()
	p.poke()
}

func (p *fakePort) poke() {
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

// unplug makes the device go away: URBs in flight end with status
// (ESHUTDOWN from most host controllers, EPROTO from some).
func (p *fakePort) unplug(status syscall.Errno) {
	p.mu.Lock()
	var us []*urb
	for u := range p.inFlight {
		us = append(us, u)
	}
	p.mu.Unlock()
	for _, u := range us {
		p.complete(u, -int32(status), nil)
	}
	p.mu.Lock()
	p.gone = true
	p.mu.Unlock()
	p.poke()
}

func (p *fakePort) reap() (uintptr, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.done) > 0 {
		a := p.done[0]
		p.done = p.done[1:]
		return a, nil
	}
	if p.gone {
		return 0, syscall.ENODEV
	}
	return 0, syscall.EAGAIN
}

func (p *fakePort) wait() error {
	select {
	case <-p.notify:
		return nil
	case <-p.woken:
		return errWoken
	case err := <-p.broken:
		return err
	}
}

func (p *fakePort) wake() { close(p.woken) }

func (p *fakePort) close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	return nil
}

func (p *fakePort) calls() []uintptr {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]uintptr(nil), p.ioctls...)
}
