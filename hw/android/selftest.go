package android

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// SelfTestOptions configure SelfTest.
type SelfTestOptions struct {
	// Options open the backend as serve would: Dial (nil: the first
	// phone on the box's USB host ports, with AOA input) and StateDir
	// (where the box's ADB key is kept) matter.
	Options
	// OutDir is where the screenshot is saved ("" means the working
	// directory).
	OutDir string
	// Version is the program's version, for the report.
	Version string
	// AllowWait bounds the wait for the phone to be reached and to allow
	// the box's key; 0 means 2 minutes.
	AllowWait time.Duration
	// Text is what the text step types ("" means "openlolo").
	Text string
}

// SelfTest checks an Android phone step by step for people with one and
// writes a report to w that can be pasted into an issue: the box's ADB
// key, reaching the phone and its "Allow USB debugging?", the phone's
// model, a screenshot saved as PNG, a tap and typed text (saying whether
// AOA HID or the shell's input ran), the Home button, the launcher's apps
// and the screen's elements. It returns how many steps failed.
func SelfTest(ctx context.Context, w io.Writer, o SelfTestOptions) int {
	if o.AllowWait <= 0 {
		o.AllowWait = 2 * time.Minute
	}
	if o.Text == "" {
		o.Text = "openlolo"
	}
	if o.Dial == nil {
		o.Dial, o.Where = USB(o.Bus), "on the box's USB host ports"
		if o.Input == nil {
			o.Input, o.InputName = &USBInput{Bus: o.Bus, Logger: o.Logger}, AOAInput
		}
	}
	s := &phone.SelfTestReport{W: w, Now: o.Now}
	fmt.Fprintf(w, "openlolo selftest --phone android (openlolo %s, %s/%s, %s)\n", o.Version, runtime.GOOS, runtime.GOARCH, s.Start().UTC().Format(time.RFC3339))
	later := []string{"phone", "screenshot", "tap", "text", "home", "apps", "elements"}

	t := s.Start()
	b, err := Open(ctx, o.Options)
	if err != nil {
		s.Done("key", t, err, "")
		s.Skip("no ADB key", append([]string{"allow"}, later...)...)
		return s.Result()
	}
	defer b.Close()
	s.Done("key", t, nil, "the box's ADB key, fingerprint "+b.Fingerprint())

	t = s.Start()
	s.Wait("allow", fmt.Sprintf("waiting up to %v: connect the phone %s with USB debugging on (Settings › Developer options), unlock it, and in Allow USB debugging? check the fingerprint %s, tick Always allow from this computer and tap Allow", o.AllowWait, where(o.Where), b.Fingerprint()))
	err = waitReady(ctx, b, o.AllowWait)
	if !s.Done("allow", t, err, "the phone allowed the box's key") {
		s.Skip("the phone was not reached", later...)
		return s.Result()
	}
	info := b.Info()
	s.Done("phone", s.Start(), nil, fmt.Sprintf("%s, %dx%d", info.Model, info.Native.X, info.Native.Y))

	t = s.Start()
	path, err := saveScreenshot(ctx, b, o.OutDir)
	if s.Done("screenshot", t, err, "saved to "+path) {
		s.Look("the phone's screen in " + path)
	}

	t = s.Start()
	rep, err := b.Touch(ctx, phone.Tap(phone.Point{X: .5, Y: .5}, phone.TapHold))
	if s.Done("tap", t, err, "tapped the centre of the screen by "+via(rep)) {
		s.Look("a touch at the centre of the screen (Settings › Developer options › Show taps makes it visible)")
	}

	t = s.Start()
	rep, err = b.Type(ctx, o.Text)
	if s.Done("text", t, err, fmt.Sprintf("typed %q by %s", o.Text, via(rep))) {
		s.Look(fmt.Sprintf("%q in the phone's focused text field (open a browser's address bar first)", o.Text))
	}

	t = s.Start()
	rep, err = b.Press(ctx, phone.Home)
	if s.Done("home", t, err, "pressed Home by "+via(rep)) {
		s.Look("the home screen")
	}

	t = s.Start()
	apps := b.Info().Apps
	err = nil
	if len(apps) == 0 {
		err = fmt.Errorf("the launcher lists no apps (`cmd package query-activities` and `pm list packages` gave none)")
	}
	s.Done("apps", t, err, fmt.Sprintf("%d launcher apps", len(apps)))

	t = s.Start()
	els, err := b.Elements(ctx)
	detail := fmt.Sprintf("%d elements from %s", len(els.Elements), els.Source)
	if els.Note != "" {
		detail += " (" + els.Note + ")"
	}
	s.Done("elements", t, err, detail)
	return s.Result()
}

// where is the phone's place for a sentence.
func where(w string) string {
	if w == "" {
		return "to the box"
	}
	return w
}

// via names the input path a report ran on, for a person.
func via(r phone.Report) string {
	switch r.Via {
	case AOAInput:
		return "AOA HID (the same cable)"
	case ShellInput:
		return "the shell's input command (AOA refused or not on USB)"
	}
	return r.Via
}

// waitReady waits up to d for the phone to be ready.
func waitReady(ctx context.Context, b *Backend, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	events := b.Subscribe(ctx)
	for {
		st := b.State()
		if st.Code == api.StateReady {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready after %v: %s (%s)", d, st.Reason, st.Code)
		case _, ok := <-events:
			if !ok {
				return fmt.Errorf("the backend closed: %s", b.State().Reason)
			}
		}
	}
}

// saveScreenshot takes a screenshot and writes it as a PNG into dir.
func saveScreenshot(ctx context.Context, b *Backend, dir string) (string, error) {
	f, err := b.Screenshot(ctx)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, f.Image); err != nil {
		return "", fmt.Errorf("encode the screenshot: %w", err)
	}
	path := filepath.Join(dir, "selftest-android-screen.png")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("save the screenshot: %w", err)
	}
	return path, nil
}
