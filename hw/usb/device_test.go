package usb

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"
)

func openFake(t *testing.T) (*Device, *fakePort) {
	t.Helper()
	p := newFakePort()
	d := newDevice("/dev/bus/usb/001/002", p)
	t.Cleanup(func() { d.Close() })
	return d, p
}

// serve answers the next URB with status and data, returning it.
func serve(p *fakePort, status int32, data []byte) chan *urb {
	got := make(chan *urb, 1)
	go func() {
		u := <-p.submitted
		got <- u
		p.complete(u, status, data)
	}()
	return got
}

// readPending starts a bulk read nobody answers and waits until it is
// in flight; its error arrives on the channel.
func readPending(t *testing.T, d *Device) <-chan error {
	errc := make(chan error)
	go func() {
		_, err := d.Bulk(t.Context(), 0x81, make([]byte, 64))
		errc <- err
	}()
	synctest.Wait()
	return errc
}

func TestControlIn(t *testing.T) {
	d, p := openFake(t)
	got := serve(p, 0, []byte{2, 0, 9, 9}) // more than asked: the kernel would not, the copy is bounded
	buf := make([]byte, 2)
	n, err := d.Control(t.Context(), 0xc0, 51, 0, 0, buf)
	if err != nil || n != 2 || !bytes.Equal(buf, []byte{2, 0}) {
		t.Fatalf("Control = %d %v, data %v; want 2 bytes [2 0]", n, err, buf)
	}
	u := <-got
	setup := unsafe.Slice((*byte)(u.Buffer), 8)
	if want := []byte{0xc0, 51, 0, 0, 0, 0, 2, 0}; !bytes.Equal(setup, want) || u.Type != urbTypeControl || u.Endpoint != 0 {
		t.Errorf("setup packet % x type %d ep %d; want % x, control on 0", setup, u.Type, u.Endpoint, want)
	}
}

func TestControlOut(t *testing.T) {
	d, p := openFake(t)
	got := serve(p, 0, nil)
	n, err := d.Control(t.Context(), 0x40, 52, 0x1234, 5, []byte("abc"))
	if err != nil || n != 3 {
		t.Fatalf("Control = %d %v; want 3 bytes sent", n, err)
	}
	u := <-got
	sent := unsafe.Slice((*byte)(u.Buffer), u.BufferLength)
	if want := []byte{0x40, 52, 0x34, 0x12, 5, 0, 3, 0, 'a', 'b', 'c'}; !bytes.Equal(sent, want) {
		t.Errorf("sent % x, want % x", sent, want)
	}
}

func TestTransferErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status syscall.Errno
		want   error
	}{
		{"stall", syscall.EPIPE, ErrStall},
		{"overflow", syscall.EOVERFLOW, ErrOverflow},
		{"gone", syscall.ESHUTDOWN, ErrDeviceGone},
		{"protocol", syscall.EPROTO, syscall.EPROTO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d, p := openFake(t)
				serve(p, -int32(tc.status), nil)
				_, err := d.Bulk(t.Context(), 0x81, make([]byte, 512))
				if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "endpoint 0x81 of /dev/bus/usb/001/002") {
					t.Errorf("Bulk error %v; want %v naming the endpoint and node", err, tc.want)
				}
			})
		})
	}
}

// A bulk read whose context ends is discarded in the kernel and returns
// at once with the context's error; the device stays usable.
func TestBulkStopsOnContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d, p := openFake(t)
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		start := time.Now()
		n, err := d.Bulk(ctx, 0x81, make([]byte, 512))
		if !errors.Is(err, context.DeadlineExceeded) || n != 0 || time.Since(start) != 2*time.Second {
			t.Fatalf("Bulk = %d %v after %v; want the deadline after 2s", n, err, time.Since(start))
		}
		<-p.submitted // the discarded URB
		serve(p, 0, []byte("next"))
		buf := make([]byte, 512)
		n, err = d.Bulk(t.Context(), 0x81, buf)
		if err != nil || string(buf[:n]) != "next" {
			t.Errorf("after a cancel: %q %v", buf[:n], err)
		}
	})
}

func TestUnplugFailsEverything(t *testing.T) {
	for _, status := range []syscall.Errno{syscall.ESHUTDOWN, syscall.EPROTO} {
		t.Run(status.Error(), func(t *testing.T) { testUnplug(t, status) })
	}
}

func testUnplug(t *testing.T, status syscall.Errno) {
	synctest.Test(t, func(t *testing.T) {
		d, p := openFake(t)
		errc := readPending(t, d)
		p.unplug(status)
		if err := <-errc; !errors.Is(err, ErrDeviceGone) {
			t.Errorf("transfer in flight: %v, want ErrDeviceGone", err)
		}
		synctest.Wait()
		if _, err := d.Bulk(t.Context(), 0x02, []byte("x")); !errors.Is(err, ErrDeviceGone) {
			t.Errorf("transfer after: %v, want ErrDeviceGone", err)
		}
		if err := d.ClearHalt(0x81); !errors.Is(err, ErrDeviceGone) {
			t.Errorf("ClearHalt after: %v, want ErrDeviceGone", err)
		}
	})
}

func TestCloseEndsTransfersAndReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d, p := openFake(t)
		if err := d.Claim(3); err != nil {
			t.Fatal(err)
		}
		errc := readPending(t, d)
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; !errors.Is(err, ErrClosed) {
			t.Errorf("transfer in flight: %v, want ErrClosed", err)
		}
		if calls := p.calls(); !slices.Equal(calls, []uintptr{reqClaimInterface, reqReleaseInterface}) || !p.closed {
			t.Errorf("ioctls %x closed=%v; want claim, release, then close", calls, p.closed)
		}
		if err := d.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
}

func TestClaimDetachesKernelDriver(t *testing.T) {
	d, p := openFake(t)
	p.ioctlErr[reqClaimInterface] = []error{syscall.EBUSY}
	if err := d.Claim(1); err != nil {
		t.Fatal(err)
	}
	if calls, want := p.calls(), []uintptr{reqClaimInterface, reqIoctl, reqClaimInterface}; !slices.Equal(calls, want) {
		t.Errorf("ioctls %x, want %x (claim, disconnect the driver, claim)", calls, want)
	}
}

func TestPermissionSaysWhatToDo(t *testing.T) {
	d, p := openFake(t)
	p.ioctlErr[reqClaimInterface] = []error{syscall.EACCES}
	err := d.Claim(0)
	if !errors.Is(err, syscall.EACCES) || !strings.Contains(err.Error(), "run it as root, or add a udev rule") {
		t.Errorf("Claim: %v; want EACCES with what to do", err)
	}
}

func TestControlTooLong(t *testing.T) {
	d, _ := openFake(t)
	if _, err := d.Control(t.Context(), 0x40, 1, 0, 0, make([]byte, 70000)); err == nil || !strings.Contains(err.Error(), "at most 65535") {
		t.Errorf("Control with 70000 bytes: %v", err)
	}
}

func TestIoctlNumbers(t *testing.T) {
	// The values of linux/usbdevice_fs.h on 64-bit arm64 and x86-64.
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("64-bit values")
	}
	for _, tc := range []struct {
		name      string
		got, want uintptr
	}{
		{"SUBMITURB", reqSubmitURB, 0x8038550a},
		{"DISCARDURB", reqDiscardURB, 0x550b},
		{"REAPURBNDELAY", reqReapURBNDelay, 0x4008550d},
		{"CLAIMINTERFACE", reqClaimInterface, 0x8004550f},
		{"RELEASEINTERFACE", reqReleaseInterface, 0x80045510},
		{"SETCONFIGURATION", reqSetConfiguration, 0x80045505},
		{"SETINTERFACE", reqSetInterface, 0x80085504},
		{"IOCTL", reqIoctl, 0xc0105512},
		{"RESET", reqReset, 0x5514},
		{"CLEAR_HALT", reqClearHalt, 0x80045515},
		{"DISCONNECT", reqDisconnect, 0x5516},
	} {
		if tc.got != tc.want {
			t.Errorf("USBDEVFS_%s = %#x, want %#x", tc.name, tc.got, tc.want)
		}
	}
}

func TestPollFailureEndsTransfers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d, p := openFake(t)
		errc := readPending(t, d)
		p.broken <- syscall.EBADF
		if err := <-errc; !errors.Is(err, syscall.EBADF) || !strings.Contains(err.Error(), "poll") {
			t.Errorf("transfer when polling failed: %v", err)
		}
	})
}

func TestIoctls(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(d *Device) error
		want uintptr
		op   string
	}{
		{"set configuration", func(d *Device) error { return d.SetConfiguration(2) }, reqSetConfiguration, "set configuration 2 on"},
		{"release", func(d *Device) error { return d.Release(1) }, reqReleaseInterface, "release interface 1 of"},
		{"alternate", func(d *Device) error { return d.SetAlternate(1, 1) }, reqSetInterface, "set alternate 1 of interface 1 of"},
		{"clear halt", func(d *Device) error { return d.ClearHalt(0x81) }, reqClearHalt, "clear halt on endpoint 0x81 of"},
		{"reset", func(d *Device) error { return d.Reset() }, reqReset, "reset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, p := openFake(t)
			if err := tc.run(d); err != nil {
				t.Fatal(err)
			}
			p.ioctlErr[tc.want] = []error{syscall.EBUSY}
			err := tc.run(d)
			if !errors.Is(err, syscall.EBUSY) || !strings.Contains(err.Error(), tc.op+" /dev/bus/usb/001/002") {
				t.Errorf("error %v; want EBUSY naming %q", err, tc.op)
			}
			if calls := p.calls(); !slices.Equal(calls, []uintptr{tc.want, tc.want}) {
				t.Errorf("ioctls %x, want %x twice", calls, tc.want)
			}
		})
	}
}

func TestPipe(t *testing.T) {
	d, p := openFake(t)
	pipe := Pipe{Device: d, InEndpoint: 0x81, OutEndpoint: 0x01}
	got := serve(p, 0, []byte("in"))
	buf := make([]byte, 8)
	if n, err := pipe.In(t.Context(), buf); err != nil || string(buf[:n]) != "in" || (<-got).Endpoint != 0x81 {
		t.Errorf("In = %q %v", buf[:n], err)
	}
	got = serve(p, 0, nil)
	if n, err := pipe.Out(t.Context(), []byte("out")); err != nil || n != 3 || (<-got).Endpoint != 0x01 {
		t.Errorf("Out = %d %v", n, err)
	}
	if err := pipe.Close(); err != nil || !p.closed {
		t.Errorf("Close = %v, node closed %v", err, p.closed)
	}
}
