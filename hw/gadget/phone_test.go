package gadget

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/sys/unix"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/capture"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// fakeKernel is a temp configfs, UDC class folder and /dev with a host
// that reads every hidg node through pipes. The host reads when a test
// asks what it got (a pipe holds far more than a test writes), so no
// reader waits on a real pipe, in or out of a synctest bubble.
type fakeKernel struct {
	configfs, udcDir, devDir string
	mu                       sync.Mutex
	got                      map[string][]byte // node → bytes read
	pipes                    map[string][]int  // node → the read ends of its pipes
}

func newFakeKernel(t *testing.T, platform, udcState string) *fakeKernel {
	t.Helper()
	dir := t.TempDir()
	k := &fakeKernel{
		configfs: filepath.Join(dir, "usb_gadget"), udcDir: filepath.Join(dir, "udc"), devDir: filepath.Join(dir, "dev"),
		got: map[string][]byte{}, pipes: map[string][]int{},
	}
	// Registered first, so it runs last, after the phone closed its
	// writer.
	t.Cleanup(k.close)
	l, err := LayoutFor(platform, Identity{})
	if err != nil {
		t.Fatal(err)
	}
	for i, fn := range l.Functions {
		d := filepath.Join(k.configfs, "openlolo", "functions", "hid."+fn.Name)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "dev"), fmt.Appendf(nil, "236:%d\n", i), 0o644)
		os.MkdirAll(k.devDir, 0o755)
		os.WriteFile(filepath.Join(k.devDir, fmt.Sprintf("hidg%d", i)), nil, 0o644)
	}
	os.WriteFile(filepath.Join(k.configfs, "openlolo", "UDC"), nil, 0o644)
	if udcState != "" {
		os.MkdirAll(filepath.Join(k.udcDir, "dummy_udc.0"), 0o755)
		k.setState(udcState)
	}
	return k
}

func (k *fakeKernel) setState(s string) {
	os.WriteFile(filepath.Join(k.udcDir, "dummy_udc.0", "state"), []byte(s+"\n"), 0o644)
}

// open hands the writer a pipe, which bytes drains.
func (k *fakeKernel) open(t *testing.T) func(string) (int, error) {
	return func(path string) (int, error) {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			return -1, err
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		node := filepath.Base(path)
		k.pipes[node] = append(k.pipes[node], p[0])
		return p[1], nil
	}
}

// bytes is all the host read from node: it reads what node's pipes hold
// now, and closes those whose writer closed.
func (k *fakeKernel) bytes(node string) []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	buf := make([]byte, 256)
	open := k.pipes[node][:0]
	for _, fd := range k.pipes[node] {
		for {
			n, err := unix.Read(fd, buf)
			if n > 0 {
				k.got[node] = append(k.got[node], buf[:n]...)
				continue
			}
			if err == unix.EAGAIN {
				open = append(open, fd)
			} else {
				unix.Close(fd)
			}
			break
		}
	}
	k.pipes[node] = open
	return append([]byte(nil), k.got[node]...)
}

// close closes the read ends still open.
func (k *fakeKernel) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, fds := range k.pipes {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}
}

// fakeVideo serves YUYV frames of a bright w×h picture centred in a
// black W×H capture.
type fakeVideo struct {
	mu     sync.Mutex
	frame  *capture.Frame
	online bool
	taken  int // calls of Latest that returned a frame
}

func (v *fakeVideo) show(seq uint64, W, H, w, h int) {
	data := make([]byte, W*H*2)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			i := (y*W + x) * 2
			data[i], data[i+1] = 16, 128 // black
			if x >= (W-w)/2 && x < (W+w)/2 && y >= (H-h)/2 && y < (H+h)/2 {
				data[i] = 200
			}
		}
	}
	v.mu.Lock()
	v.frame = &capture.Frame{Format: capture.Format{Pixel: capture.YUYV, Width: W, Height: H, Stride: W * 2}, Data: data, Seq: seq, Captured: time.Now()}
	v.online = true
	v.mu.Unlock()
}

func (v *fakeVideo) Latest() (*capture.Frame, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.online {
		return nil, capture.ErrNoDevice
	}
	if v.frame == nil {
		return nil, capture.ErrNoFrame
	}
	v.taken++
	return v.frame, nil
}
func (v *fakeVideo) Online() bool { v.mu.Lock(); defer v.mu.Unlock(); return v.online }
func (v *fakeVideo) Close() error { v.mu.Lock(); defer v.mu.Unlock(); v.online = false; return nil }

// hasReport reports whether stream holds r at a multiple of len(r).
func hasReport(stream, r []byte) bool {
	for i := 0; i+len(r) <= len(stream); i += len(r) {
		if string(stream[i:i+len(r)]) == string(r) {
			return true
		}
	}
	return false
}

func openFake(t *testing.T, k *fakeKernel, platform string, video frameSource) *Phone {
	t.Helper()
	p, err := Open(context.Background(), fakeOptions(t, k, platform, video))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// fakeOptions are openFake's options: the fake kernel's paths and video.
func fakeOptions(t *testing.T, k *fakeKernel, platform string, video frameSource) Options {
	t.Helper()
	opts := Options{
		Platform: platform, Serial: "test", ConfigFS: k.configfs, UDCDir: k.udcDir, DevDir: k.devDir,
		Poll: 10 * time.Millisecond, WriteDeadline: 200 * time.Millisecond, open: k.open(t), capture: video,
		refresh: 10 * time.Millisecond,
	}
	if video == nil {
		opts.Video = NoVideo
	}
	return opts
}

// waitState waits for the backend to report code: at each of its events,
// and every 5 ms (the monitor reads real files and pipes, which
// testing/synctest's fake time does not cover).
func waitState(t *testing.T, p *Phone, code api.PhoneState) {
	t.Helper()
	events := p.Subscribe(t.Context())
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for p.State().Code != code {
		select {
		case <-events:
		case <-tick.C:
		case <-deadline:
			t.Fatalf("state = %+v, want %s", p.State(), code)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	k := newFakeKernel(t, Android, StateConfigured)
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no configfs", Options{Platform: Android, ConfigFS: "/nonexistent/usb_gadget"}, "cannot be a USB gadget"},
		{"bad platform", Options{Platform: "windows", ConfigFS: k.configfs}, `unknown profile "windows"`},
	}
	for _, tt := range tests {
		_, err := Open(context.Background(), tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Open error = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestPhoneNoUDC(t *testing.T) {
	t.Parallel()
	k := newFakeKernel(t, Android, "")
	p := openFake(t, k, Android, nil)
	if s := p.State(); s.Code != "no_udc" || !strings.Contains(s.Reason, "dtoverlay=dwc2") {
		t.Fatalf("State = %+v, want no_udc with a hint", s)
	}
	if s := p.State(); s.Problems != phone.ProblemSet(phone.NoUDC) {
		t.Errorf("Problems = %v, want no_udc (the box page's walkthrough keys on it)", s.Problems)
	}
	if _, err := p.Type(context.Background(), "a"); !errors.Is(err, phone.ErrUnavailable) {
		t.Errorf("Type without a UDC = %v, want ErrUnavailable", err)
	}
}

func TestPhoneStates(t *testing.T) {
	t.Parallel()
	k := newFakeKernel(t, Android, "not attached")
	v := &fakeVideo{}
	p := openFake(t, k, Android, v)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := p.Subscribe(ctx)
	waitState(t, p, "not_configured")
	if !strings.Contains(p.State().Reason, `"not attached"`) {
		t.Errorf("not_configured reason %q does not name the UDC state", p.State().Reason)
	}
	if _, err := p.Type(ctx, "a"); !errors.Is(err, phone.ErrUnavailable) {
		t.Errorf("Type while not configured = %v, want ErrUnavailable", err)
	}
	k.setState(StateConfigured)
	waitState(t, p, "no_video")
	if pr := p.State().Problems; pr != phone.ProblemSet(phone.NoVideo) {
		t.Errorf("Problems while no_video = %v", pr)
	}
	v.show(1, 64, 32, 16, 32)
	waitState(t, p, "ready")
	if pr := p.State().Problems; pr != 0 {
		t.Errorf("Problems when ready = %v, want none", pr)
	}
	// Events after Open's state: no_video, then ready.
	var codes []string
	timeout := time.After(2 * time.Second)
	for len(codes) < 2 {
		select {
		case e := <-events:
			codes = append(codes, string(e.State.Code))
		case <-timeout:
			t.Fatalf("events so far %v, want three state changes", codes)
		}
	}
	if strings.Join(codes, ",") != "no_video,ready" {
		t.Errorf("state events = %v", codes)
	}
	// The phone configured the device: the backend released everything.
	if kb := k.bytes("hidg0"); len(kb) < 8 || string(kb[:8]) != string(hid.Keyboard(0)) {
		t.Errorf("keyboard node got %x after connect, want release reports", kb)
	}
}

func TestPhoneInputAndScreenshot(t *testing.T) {
	t.Parallel()
	k := newFakeKernel(t, Android, StateConfigured)
	v := &fakeVideo{}
	v.show(1, 64, 32, 16, 32) // portrait phone pillarboxed in a landscape capture
	p := openFake(t, k, Android, v)
	waitState(t, p, "ready")
	ctx := context.Background()
	before := len(k.bytes("hidg0"))
	if _, err := p.Type(ctx, "Hi"); err != nil {
		t.Fatal(err)
	}
	if got := k.bytes("hidg0")[before:]; !hasReport(got, hid.Keyboard(hid.LeftShift, hid.KeyA+'h'-'a')) || !hasReport(got, hid.Keyboard(0, hid.KeyA+'i'-'a')) {
		t.Errorf("keyboard bytes after Type(Hi) = %x, want shift+h and i reports", got)
	}
	if _, err := p.Touch(ctx, phone.Tap(phone.Point{X: 0.5, Y: 0.5}, 10*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if got := k.bytes("hidg2"); len(got) < hid.TouchReportLen || got[0] != hid.TouchReportID {
		t.Errorf("touch node got %x, want touch reports", got)
	}
	if _, err := p.Press(ctx, phone.Home); err != nil {
		t.Fatal(err)
	}
	if got := k.bytes("hidg1"); !hasReport(got, hid.Consumer(hid.ConsumerHome)) {
		t.Errorf("consumer node got %x, want an AC Home report", got)
	}

	events := p.Subscribe(context.Background())
	f, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f.Image.Bounds() != image.Rect(0, 0, 16, 32) || f.Geometry != (phone.Geometry{Width: 16, Height: 32, Epoch: 1}) {
		t.Fatalf("Screenshot = %v %+v, want the 16x32 content at epoch 1", f.Image.Bounds(), f.Geometry)
	}
	if again, _ := p.Screenshot(ctx); again != f {
		t.Error("the same capture frame was decoded twice")
	}
	v.show(2, 64, 32, 64, 16) // rotated: landscape, letterboxed
	f2, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f2.Geometry != (phone.Geometry{Width: 64, Height: 16, Epoch: 2}) || p.State().Geometry != f2.Geometry {
		t.Errorf("after rotation Geometry = %+v (state %+v), want 64x16 epoch 2", f2.Geometry, p.State().Geometry)
	}
	if info := p.Info(); info.Native != image.Pt(64, 16) || info.Platform != phone.Android || !info.HasButton(phone.Back) {
		t.Errorf("Info = %+v", info)
	}
	// The rotation shows up as a geometry event at epoch 2 and a frame
	// event for capture frame 2 (a background refresh may have sent the
	// first screenshot's events before Subscribe).
	var sawGeo, sawFrame bool
	for !sawGeo || !sawFrame {
		select {
		case e := <-events:
			sawGeo = sawGeo || e.Kind == phone.GeometryChanged && e.State.Geometry.Epoch == 2
			sawFrame = sawFrame || e.Kind == phone.NewFrame && e.Seq == 2
		case <-time.After(2 * time.Second):
			t.Fatalf("geometry event %v, frame event %v; want both for the rotation", sawGeo, sawFrame)
		}
	}
}

// openShowing opens the backend, with a background refresh every
// refresh, on a configured Android gadget whose capture shows a 16x32
// phone in a 64x32 frame (capture frame 1).
func openShowing(t *testing.T, refresh time.Duration) (*Phone, *fakeVideo) {
	t.Helper()
	v := &fakeVideo{}
	v.show(1, 64, 32, 16, 32)
	o := fakeOptions(t, newFakeKernel(t, Android, StateConfigured), Android, v)
	o.refresh = refresh
	p, err := Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, v
}

func TestPhoneRefreshesGeometry(t *testing.T) {
	t.Parallel()
	// The backend's poll and refresh timers run on the bubble's clock:
	// each step moves it past one refresh and waits until the backend
	// is idle again.
	synctest.Test(t, func(t *testing.T) {
		p, v := openShowing(t, 10*time.Millisecond)
		settle := func() { time.Sleep(3 * time.Second); synctest.Wait() }
		settle()
		if st := p.State(); st.Code != "ready" || st.Geometry != (phone.Geometry{Width: 16, Height: 32, Epoch: 1}) {
			t.Fatalf("state %+v without a screenshot, want ready with 16x32 epoch 1", st)
		}
		v.show(2, 64, 32, 64, 16)
		settle()
		if g := p.State().Geometry; g.Epoch != 2 {
			t.Fatalf("geometry %+v after rotation without a screenshot, want epoch 2", g)
		}
	})
}

// TestPhoneRefreshTakesAFrameARefresh: the background geometry check
// takes a frame from the capture device (a 4 MB copy at 1080p) once a
// refresh, not at every poll.
func TestPhoneRefreshTakesAFrameARefresh(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p, v := openShowing(t, time.Second) // 100 polls of 10 ms each
		time.Sleep(5*time.Second + 5*time.Millisecond)
		synctest.Wait()
		v.mu.Lock()
		taken := v.taken
		v.mu.Unlock()
		if taken < 5 || taken > 6 {
			t.Errorf("the background check took %d frames in 5 s of 10 ms polls, want one a second", taken)
		}
		if st := p.State(); st.Geometry != (phone.Geometry{Width: 16, Height: 32, Epoch: 1}) {
			t.Errorf("state %+v, want the frame's 16x32 geometry", st)
		}
	})
}

func TestPhoneNoVideo(t *testing.T) {
	t.Parallel()
	k := newFakeKernel(t, IOS, StateConfigured)
	p := openFake(t, k, IOS, nil)
	waitState(t, p, "no_video")
	if _, err := p.Screenshot(context.Background()); !errors.Is(err, phone.ErrCaptureFailed) {
		t.Errorf("Screenshot without video = %v, want ErrCaptureFailed", err)
	}
	if _, err := p.Press(context.Background(), phone.Back); !errors.Is(err, phone.ErrUnsupportedButton) {
		t.Errorf("Press(back) on iOS = %v, want ErrUnsupportedButton", err)
	}
}

func TestPhoneClose(t *testing.T) {
	t.Parallel()
	k := newFakeKernel(t, Android, StateConfigured)
	p := openFake(t, k, Android, &fakeVideo{})
	events := p.Subscribe(context.Background())
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if p.State().Code != "closed" {
		t.Errorf("State after Close = %+v", p.State())
	}
	if _, err := p.Type(context.Background(), "a"); !errors.Is(err, phone.ErrUnavailable) {
		t.Errorf("Type after Close = %v, want ErrUnavailable", err)
	}
	for range events { // drains until closed
	}
	if u, _ := (&Reconciler{Root: k.configfs}).Bound("openlolo"); u != "dummy_udc.0" {
		t.Errorf("gadget bound to %q after Close, want it left bound (no TeardownOnClose)", u)
	}
}

func TestBoundStateUnbound(t *testing.T) {
	t.Parallel()
	k := newFakeKernel(t, Android, StateConfigured)
	b, err := Setup{Platform: Android, ConfigFS: k.configfs, UDCDir: k.udcDir, DevDir: k.devDir}.Apply(context.Background(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if s := b.State(); s != StateConfigured {
		t.Fatalf("State = %q, want configured", s)
	}
	// Unbinding leaves the controller's state file at "configured" on
	// some UDCs (dummy_hcd); the gadget's own UDC attribute tells.
	os.WriteFile(filepath.Join(k.configfs, "openlolo", "UDC"), []byte("\n"), 0o644)
	if s := b.State(); s != StateUnbound {
		t.Errorf("State after unbind = %q, want %q", s, StateUnbound)
	}
}
