package android_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/android"
	"github.com/openlolo/openlolo/phone"
)

// The self-test on a phone that allows the box's key: every step ok, the
// fingerprint and the path of each input in the report, the screenshot
// saved; on a phone that never allows it: the wait fails with the reason
// and the later steps are skipped. The wait ends while the phone asks its
// owner or after it refused (which one depends on the machine's speed);
// both are pairing and both tell the owner what to tap.
func TestSelfTest(t *testing.T) {
	t.Parallel()
	quick := func(ctx context.Context, d time.Duration) error { return phone.Sleep(ctx, time.Millisecond) }
	f := startPhone(t, nil, true)
	out := t.TempDir()
	var b strings.Builder
	failed := android.SelfTest(t.Context(), &b, android.SelfTestOptions{
		Options: android.Options{Dial: android.TCP(f.Addr), Where: "at " + f.Addr, StateDir: t.TempDir(), Sleep: quick},
		OutDir:  out, Version: "test", AllowWait: 20 * time.Second})
	report := b.String()
	for _, want := range []string{"openlolo selftest --phone android (openlolo test", "ok      key          the box's ADB key, fingerprint ",
		"ok      allow", "ok      phone", "ok      screenshot", "ok      tap          tapped the centre of the screen by the shell's input command",
		`ok      text         typed "openlolo"`, "ok      home", "ok      apps", "ok      elements     ", "from accessibility", "result: 9 ok, 0 failed, 0 skipped"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if failed != 0 {
		t.Errorf("SelfTest = %d failed, want 0", failed)
	}
	if _, err := os.Stat(filepath.Join(out, "selftest-android-screen.png")); err != nil {
		t.Errorf("no screenshot saved: %v", err)
	}
	if got := f.Inputs(); len(got) < 3 {
		t.Errorf("the phone got inputs %q, want a tap, text and Home", got)
	}

	refusing := startPhone(t, nil, false)
	b.Reset()
	failed = android.SelfTest(t.Context(), &b, android.SelfTestOptions{
		Options: android.Options{Dial: android.TCP(refusing.Addr), Where: "at " + refusing.Addr, StateDir: t.TempDir(), Sleep: quick},
		OutDir:  out, AllowWait: 300 * time.Millisecond})
	report = b.String()
	for _, want := range []string{"...     allow        waiting up to 300ms: connect the phone at " + refusing.Addr, "FAIL    allow        not ready after 300ms: The Android phone ",
		"tick Always allow from this computer", "(pairing)", "skip    screenshot   the phone was not reached", "result: 1 ok, 1 failed, 7 skipped"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if failed != 1 {
		t.Errorf("SelfTest on a refusing phone = %d failed, want 1", failed)
	}
}
