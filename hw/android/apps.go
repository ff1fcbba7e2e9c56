package android

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/openlolo/openlolo/hw/adb"
	"github.com/openlolo/openlolo/phone"
)

// LaunchApp opens the launcher activity of the package id, as a tap on
// its icon does (monkey with the launcher category, which needs no
// activity name).
func (b *Backend) LaunchApp(ctx context.Context, id string) (phone.Report, error) {
	if !validPackage(id) {
		return phone.Report{}, fmt.Errorf("android: %w: %q is not an Android package name", phone.ErrUnsupported, id)
	}
	return b.run1(ctx, "launch "+id, "monkey -p "+id+" -c android.intent.category.LAUNCHER 1", func(out string) error {
		if strings.Contains(out, "No activities found") || strings.Contains(out, "monkey aborted") {
			return fmt.Errorf("android: %w: %s has no launcher activity on the phone (is it installed?)", phone.ErrInputFailed, id)
		}
		return nil
	})
}

// OpenURL opens u in the app that takes it (a VIEW intent), any scheme.
func (b *Backend) OpenURL(ctx context.Context, u string) (phone.Report, error) {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme == "" || strings.ContainsAny(u, "\x00\n\r") {
		return phone.Report{}, fmt.Errorf("android: %w: %q is not an absolute URL", phone.ErrUnsupported, u)
	}
	return b.run1(ctx, "open "+u, "am start -a android.intent.action.VIEW -d "+shQuote(u), func(out string) error {
		if strings.Contains(out, "Error:") {
			return fmt.Errorf("android: %w: no app on the phone opens %s: %s", phone.ErrInputFailed, u, clip(strings.TrimSpace(out)))
		}
		return nil
	})
}

// run1 runs one shell command that acts on the phone, one input at a
// time; check reads its output for a failure the exit status hides.
func (b *Backend) run1(ctx context.Context, what, cmd string, check func(out string) error) (phone.Report, error) {
	c, _, err := b.current()
	if err != nil {
		return phone.Report{}, err
	}
	b.inMu.Lock()
	defer b.inMu.Unlock()
	start := b.o.Now()
	res, err := c.Shell(ctx, cmd)
	rep := phone.Report{Took: b.o.Now().Sub(start)}
	if err != nil {
		return rep, fmt.Errorf("android: %w: %s: %w", phone.ErrInputFailed, what, err)
	}
	out := string(res.Stdout) + string(res.Stderr)
	if err := check(out); err != nil {
		return rep, err
	}
	if res.ExitCode > 0 {
		return rep, fmt.Errorf("android: %w: %s: exit status %d: %s", phone.ErrInputFailed, what, res.ExitCode, clip(strings.TrimSpace(out)))
	}
	rep.Reports = 1
	return rep, nil
}

// clipboardConn is the connection when the phone's shell has a clipboard.
func (b *Backend) clipboardConn() (*adb.Conn, error) {
	c, dev, err := b.current()
	if err != nil {
		return nil, err
	}
	if !dev.clipboard {
		return nil, fmt.Errorf("android: %w: this phone's shell has no clipboard command (cmd clipboard)", phone.ErrUnsupported)
	}
	return c, nil
}

// SetClipboard replaces the phone's clipboard with text (`cmd clipboard
// set`, where the phone's build has it).
func (b *Backend) SetClipboard(ctx context.Context, text string) error {
	c, err := b.clipboardConn()
	if err != nil {
		return err
	}
	if strings.ContainsRune(text, 0) {
		return fmt.Errorf("android: %w: the clipboard takes no NUL characters", phone.ErrUnsupportedText)
	}
	if _, err := shell(ctx, c, "cmd clipboard set "+shQuote(text)); err != nil {
		return fmt.Errorf("android: set the clipboard: %w", err)
	}
	return nil
}

// Clipboard returns the text on the phone's clipboard.
func (b *Backend) Clipboard(ctx context.Context) (string, error) {
	c, err := b.clipboardConn()
	if err != nil {
		return "", err
	}
	out, err := shell(ctx, c, "cmd clipboard get")
	if err != nil {
		return "", fmt.Errorf("android: read the clipboard: %w", err)
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}
