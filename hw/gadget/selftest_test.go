package gadget

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakePanel is the box's LED and button for the self-test.
type fakePanel struct {
	led, button bool
	press       bool // a press comes at once
	blinked     time.Duration
}

func (f *fakePanel) Blink(ctx context.Context, d time.Duration) bool {
	if f.led {
		f.blinked = d
	}
	return f.led
}

func (f *fakePanel) WaitPress(ctx context.Context) (bool, error) {
	if !f.button {
		return false, nil
	}
	if f.press {
		return true, nil
	}
	<-ctx.Done()
	return true, ctx.Err()
}

func selftestOpts(k *fakeKernel, t *testing.T, platform string, video frameSource) SelfTestOptions {
	o := SelfTestOptions{
		Options: Options{
			Platform: platform, Serial: "test", ConfigFS: k.configfs, UDCDir: k.udcDir, DevDir: k.devDir,
			Poll: 10 * time.Millisecond, WriteDeadline: 200 * time.Millisecond, open: k.open(t), capture: video,
			refresh: 10 * time.Millisecond,
		},
		OutDir: t.TempDir(), Version: "test", ConfigureWait: 2 * time.Second, FrameWait: 300 * time.Millisecond,
		ButtonWait: 50 * time.Millisecond,
	}
	if video == nil {
		o.Video = NoVideo
	}
	return o
}

func wantLines(t *testing.T, report string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(report, l) {
			t.Errorf("report lacks %q:\n%s", l, report)
		}
	}
}

// TestSelfTest: on a configured gadget with a capture device every step
// passes, the word and the tap reach the host, and the frame is saved.
func TestSelfTest(t *testing.T) {
	k := newFakeKernel(t, Android, StateConfigured)
	v := &fakeVideo{}
	v.show(1, 64, 32, 16, 32)
	o := selftestOpts(k, t, Android, v)
	panel := &fakePanel{led: true, button: true, press: true}
	o.Panel = panel
	var out bytes.Buffer
	if n := SelfTest(context.Background(), &out, o); n != 0 {
		t.Fatalf("%d failed:\n%s", n, out.String())
	}
	r := out.String()
	wantLines(t, r, "openlolo selftest --phone gadget --platform android (openlolo test",
		"ok      configfs", "ok      udc          dummy_udc.0", "ok      gadget       bound to dummy_udc.0: keyboard, consumer, touch",
		"ok      configured", `ok      key          typed "openlolo"`, `look for:    "openlolo" in the phone's focused text field`,
		"ok      tap          tapped the centre", "Show taps", "ok      capture      16x32 frame saved to",
		"ok      led          blinked fast for 3 s", "ok      button       pressed", "result: 9 ok, 0 failed, 0 skipped")
	b, err := os.ReadFile(filepath.Join(o.OutDir, "selftest-gadget-frame.png"))
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("frame file: %v", err)
	}
	if len(k.bytes("hidg0")) == 0 || len(k.bytes("hidg2")) == 0 {
		t.Errorf("the host saw no keyboard (%d bytes) or touch (%d bytes) reports", len(k.bytes("hidg0")), len(k.bytes("hidg2")))
	}
	if panel.blinked != 3*time.Second {
		t.Errorf("LED blinked %v", panel.blinked)
	}
}

// TestSelfTestFailures: each missing part fails its own step with what
// to do, the steps that need it are skipped, and the box's own parts are
// still tested.
func TestSelfTestFailures(t *testing.T) {
	t.Run("no configfs", func(t *testing.T) {
		k := newFakeKernel(t, IOS, StateConfigured)
		o := selftestOpts(k, t, IOS, nil)
		o.ConfigFS = filepath.Join(t.TempDir(), "none")
		var out bytes.Buffer
		if n := SelfTest(context.Background(), &out, o); n != 1 {
			t.Errorf("%d failed, want 1", n)
		}
		wantLines(t, out.String(), "FAIL    configfs", "modprobe libcomposite", "skip    key          no configfs",
			"skip    led          no GPIO panel", "result: 0 ok, 1 failed, 5 skipped")
	})
	t.Run("no udc", func(t *testing.T) {
		k := newFakeKernel(t, IOS, "")
		var out bytes.Buffer
		SelfTest(context.Background(), &out, selftestOpts(k, t, IOS, nil))
		wantLines(t, out.String(), "FAIL    udc", "dtoverlay=dwc2", "skip    capture      no USB device controller")
	})
	t.Run("not configured, no LED, no press", func(t *testing.T) {
		k := newFakeKernel(t, IOS, StateNotAttached)
		o := selftestOpts(k, t, IOS, nil)
		o.ConfigureWait = 100 * time.Millisecond
		o.Panel = &fakePanel{button: true}
		var out bytes.Buffer
		if n := SelfTest(context.Background(), &out, o); n != 3 {
			t.Errorf("%d failed, want 3", n)
		}
		wantLines(t, out.String(), "FAIL    configured   not configured after 100ms", `"not attached"`,
			"skip    tap          the phone did not configure the gadget",
			"FAIL    led          no LED found", "FAIL    button       no press within 50ms")
	})
	t.Run("no video, no button", func(t *testing.T) {
		k := newFakeKernel(t, IOS, StateConfigured)
		o := selftestOpts(k, t, IOS, nil)
		o.Panel = &fakePanel{led: true}
		var out bytes.Buffer
		if n := SelfTest(context.Background(), &out, o); n != 2 {
			t.Errorf("%d failed, want 2:\n%s", n, out.String())
		}
		wantLines(t, out.String(), "ok      key", "ok      tap", "AssistiveTouch pointer moves",
			"FAIL    capture      no frame within 300ms", "capture adapter", "FAIL    button       no button found")
	})
}
