package aoa

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// call is one control transfer a recorder saw.
type call struct {
	Setup
	data []byte
}

// recorder is a Controller that records each transfer and answers with
// answer (nil: every byte moves, In requests read protocol 2).
type recorder struct {
	calls  []call
	answer func(c call, data []byte) (int, error)
}

func (r *recorder) Control(ctx context.Context, rt, req uint8, value, index uint16, data []byte) (int, error) {
	c := call{Setup{rt, req, value, index, uint16(len(data))}, slices.Clone(data)}
	r.calls = append(r.calls, c)
	if r.answer != nil {
		return r.answer(c, data)
	}
	if c.In() && len(data) >= 2 {
		data[0], data[1] = 2, 0
	}
	return len(data), nil
}

func (r *recorder) setups() []Setup {
	var s []Setup
	for _, c := range r.calls {
		s = append(s, c.Setup)
	}
	return s
}

func TestRequestSetups(t *testing.T) {
	desc := bytes.Repeat([]byte{0xab}, 10)
	for _, tc := range []struct {
		name string
		do   func(ctx context.Context, c Controller) error
		want []Setup
	}{
		{"GET_PROTOCOL", func(ctx context.Context, c Controller) error { _, err := Protocol(ctx, c); return err },
			[]Setup{{RequestType: 0xc0, Request: 51, Length: 2}}},
		{"REGISTER_HID then SET_HID_REPORT_DESC", func(ctx context.Context, c Controller) error { return registerHID(ctx, c, 3, desc, 64) },
			[]Setup{{RequestType: 0x40, Request: 54, Value: 3, Index: 10}, {RequestType: 0x40, Request: 56, Value: 3, Index: 0, Length: 10}}},
		{"UNREGISTER_HID", func(ctx context.Context, c Controller) error { return unregisterHID(ctx, c, 2) },
			[]Setup{{RequestType: 0x40, Request: 55, Value: 2}}},
		{"SEND_HID_EVENT", func(ctx context.Context, c Controller) error { return sendHIDEvent(ctx, c, 1, make([]byte, 8)) },
			[]Setup{{RequestType: 0x40, Request: 57, Value: 1, Length: 8}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			if err := tc.do(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			if got := r.setups(); !slices.Equal(got, tc.want) {
				t.Errorf("setups = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSetupBytes(t *testing.T) {
	for _, tc := range []struct {
		s    Setup
		want []byte
	}{
		{Setup{RequestType: RequestIn, Request: GetProtocol, Length: 2}, []byte{0xc0, 51, 0, 0, 0, 0, 2, 0}},
		{Setup{RequestType: RequestOut, Request: RegisterHID, Value: 3, Index: 0x0102}, []byte{0x40, 54, 3, 0, 2, 1, 0, 0}},
		{Setup{RequestType: RequestOut, Request: SetHIDReportDesc, Value: 3, Index: 64, Length: 37}, []byte{0x40, 56, 3, 0, 64, 0, 37, 0}},
		{Setup{RequestType: RequestOut, Request: SendHIDEvent, Value: 1, Length: 8}, []byte{0x40, 57, 1, 0, 0, 0, 8, 0}},
		{Setup{RequestType: RequestOut, Request: UnregisterHID, Value: 0xbeef}, []byte{0x40, 55, 0xef, 0xbe, 0, 0, 0, 0}},
	} {
		b := tc.s.Bytes()
		if !bytes.Equal(b[:], tc.want) {
			t.Errorf("%v.Bytes() = % x, want % x", tc.s, b, tc.want)
		}
		back, err := ParseSetup(b[:])
		if err != nil || back != tc.s {
			t.Errorf("ParseSetup(% x) = %v, %v, want %v", b, back, err, tc.s)
		}
	}
	if _, err := ParseSetup(make([]byte, 7)); err == nil || !strings.Contains(err.Error(), "8 bytes, got 7") {
		t.Errorf("ParseSetup(7 bytes) error = %v, want one naming the lengths", err)
	}
}

func TestChunking(t *testing.T) {
	desc := make([]byte, 150)
	for i := range desc {
		desc[i] = byte(i)
	}
	for _, tc := range []struct {
		chunk       int
		wantOffsets []uint16
		wantLens    []uint16
	}{
		{64, []uint16{0, 64, 128}, []uint16{64, 64, 22}},
		{50, []uint16{0, 50, 100}, []uint16{50, 50, 50}},
		{150, []uint16{0}, []uint16{150}},
		{4096, []uint16{0}, []uint16{150}},
	} {
		r := &recorder{}
		if err := registerHID(t.Context(), r, 7, desc, tc.chunk); err != nil {
			t.Fatal(err)
		}
		var offs, lens []uint16
		var got []byte
		for _, c := range r.calls[1:] {
			if c.Request != SetHIDReportDesc || c.Value != 7 {
				t.Fatalf("chunk %d: unexpected %v", tc.chunk, c.Setup)
			}
			offs, lens = append(offs, c.Index), append(lens, c.Length)
			got = append(got, c.data...)
		}
		if !slices.Equal(offs, tc.wantOffsets) || !slices.Equal(lens, tc.wantLens) {
			t.Errorf("chunk %d: offsets %v lengths %v, want %v %v", tc.chunk, offs, lens, tc.wantOffsets, tc.wantLens)
		}
		if !bytes.Equal(got, desc) {
			t.Errorf("chunk %d: the chunks do not add up to the descriptor", tc.chunk)
		}
	}
}

func TestRequestErrors(t *testing.T) {
	errUnplugged := errors.New("usb: no such device")
	for _, tc := range []struct {
		name   string
		answer func(c call, data []byte) (int, error)
		do     func(ctx context.Context, c Controller) error
		is     []error
		not    []error
		substr string
	}{
		{"protocol refused", func(call, []byte) (int, error) { return 0, errUnplugged },
			func(ctx context.Context, c Controller) error { _, err := Protocol(ctx, c); return err },
			[]error{ErrUnsupported, errUnplugged}, nil, "refused GET_PROTOCOL"},
		{"protocol short", func(call, []byte) (int, error) { return 1, nil },
			func(ctx context.Context, c Controller) error { _, err := Protocol(ctx, c); return err },
			[]error{ErrUnsupported}, nil, "with 1 bytes, not 2"},
		{"protocol 1", func(_ call, d []byte) (int, error) { d[0] = 1; return 2, nil },
			func(ctx context.Context, c Controller) error { _, err := Protocol(ctx, c); return err },
			[]error{ErrUnsupported}, nil, "AOA version 1; HID input needs version 2"},
		{"short event", func(call, []byte) (int, error) { return 3, nil },
			func(ctx context.Context, c Controller) error { return sendHIDEvent(ctx, c, 1, make([]byte, 8)) },
			nil, []error{ErrUnsupported}, "SEND_HID_EVENT: the phone took 3 of 8 bytes"},
		{"chunk fails", func(c call, _ []byte) (int, error) {
			if c.Request == SetHIDReportDesc && c.Index == 64 {
				return 0, errUnplugged
			}
			return int(c.Length), nil
		},
			func(ctx context.Context, c Controller) error { return registerHID(ctx, c, 3, make([]byte, 100), 64) },
			[]error{errUnplugged}, []error{ErrUnsupported}, "descriptor bytes 64..100 of 100: SET_HID_REPORT_DESC: usb: no such device"},
		{"empty descriptor", nil,
			func(ctx context.Context, c Controller) error { return registerHID(ctx, c, 3, nil, 64) },
			nil, nil, "descriptor of 0 bytes cannot be registered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do(t.Context(), &recorder{answer: tc.answer})
			if err == nil {
				t.Fatal("no error")
			}
			for _, e := range tc.is {
				if !errors.Is(err, e) {
					t.Errorf("error %q does not wrap %v", err, e)
				}
			}
			for _, e := range tc.not {
				if errors.Is(err, e) {
					t.Errorf("error %q wraps %v", err, e)
				}
			}
			if !strings.Contains(err.Error(), tc.substr) {
				t.Errorf("error %q does not say %q", err, tc.substr)
			}
		})
	}
}

func TestProtocolCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r := &recorder{answer: func(call, []byte) (int, error) { return 0, ctx.Err() }}
	_, err := Protocol(ctx, r)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnsupported) {
		t.Errorf("Protocol(cancelled) = %v, want context.Canceled and not ErrUnsupported", err)
	}
	if err := sendHIDEvent(ctx, r, 1, []byte{1}); !errors.Is(err, context.Canceled) {
		t.Errorf("sendHIDEvent(cancelled) = %v, want context.Canceled", err)
	}
	if len(r.calls) != 1 {
		t.Errorf("%d transfers, want only the GET_PROTOCOL (a cancelled event is not sent)", len(r.calls))
	}
}

// hang is a Controller whose phone never answers: each transfer waits for
// its ctx, as hw/usb's does, and fails with the context's cause.
type hang struct{}

func (hang) Control(ctx context.Context, _, _ uint8, _, _ uint16, _ []byte) (int, error) {
	<-ctx.Done()
	return 0, context.Cause(ctx)
}

// A phone that never answers a control request fails it after
// TransferTimeout with ErrNoAnswer, not at the caller's deadline; the
// caller's own cancel stays the caller's error.
func TestTransferTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(ctx context.Context, c Controller) error
	}{
		{"GET_PROTOCOL", func(ctx context.Context, c Controller) error { _, err := Protocol(ctx, c); return err }},
		{"SEND_HID_EVENT", func(ctx context.Context, c Controller) error { return sendHIDEvent(ctx, c, 1, make([]byte, 8)) }},
		{"SET_HID_REPORT_DESC", func(ctx context.Context, c Controller) error {
			return registerHID(ctx, &failOn{Controller: hang{}, req: SetHIDReportDesc}, 3, []byte{1, 2}, 64)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
				defer cancel()
				start := time.Now()
				err := tc.do(ctx, hang{})
				if !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), tc.name) {
					t.Errorf("err = %v, want ErrNoAnswer naming %s", err, tc.name)
				}
				if took := time.Since(start); took != TransferTimeout {
					t.Errorf("failed after %v, want %v", took, TransferTimeout)
				}
			})
		})
	}
	t.Run("caller cancels", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			err := sendHIDEvent(ctx, hang{}, 1, make([]byte, 8))
			if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrNoAnswer) {
				t.Errorf("err = %v, want the caller's deadline, not ErrNoAnswer", err)
			}
		})
	})
}

// failOn answers every request at once but req, which goes to the
// embedded Controller.
type failOn struct {
	Controller
	req uint8
}

func (f *failOn) Control(ctx context.Context, rt, req uint8, value, index uint16, data []byte) (int, error) {
	if req != f.req {
		return len(data), nil
	}
	return f.Controller.Control(ctx, rt, req, value, index, data)
}
