package android

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/openlolo/openlolo/hw/adb"
	"github.com/openlolo/openlolo/phone"
)

// device is what the box learnt about the phone when it connected.
type device struct {
	// Model, Manufacturer and Release come from getprop
	// (ro.product.model, ro.product.manufacturer,
	// ro.build.version.release); SDK is ro.build.version.sdk.
	Model, Manufacturer, Release string
	SDK                          int
	size                         image.Point // the screen in its current rotation
	clipboard                    bool        // `cmd clipboard` sets and reads it
	apps                         []phone.App
}

func (d device) model() string {
	name := strings.TrimSpace(d.Model)
	if name == "" {
		name = "Android phone"
	}
	if d.Manufacturer != "" && !strings.HasPrefix(strings.ToLower(name), strings.ToLower(d.Manufacturer)) {
		name = d.Manufacturer + " " + name
	}
	if d.Release != "" {
		name += fmt.Sprintf(" (Android %s, SDK %d)", d.Release, d.SDK)
	}
	return name
}

// probe reads the phone's properties, screen size, clipboard and apps.
func probe(ctx context.Context, c *adb.Conn) (device, error) {
	var d device
	res, err := shell(ctx, c, "getprop")
	if err != nil {
		return d, err
	}
	props := parseGetprop(res)
	d.Model, d.Manufacturer, d.Release = props["ro.product.model"], props["ro.product.manufacturer"], props["ro.build.version.release"]
	d.SDK, _ = strconv.Atoi(props["ro.build.version.sdk"])
	if d.size, err = screenHeader(ctx, c); err != nil {
		// No screencap header: the physical size, which is right in
		// the phone's natural rotation.
		out, werr := shell(ctx, c, "wm size")
		if werr != nil {
			return d, fmt.Errorf("android: screen size: %w (and screencap: %w)", werr, err)
		}
		if d.size, werr = parseWMSize(out); werr != nil {
			return d, fmt.Errorf("android: screen size: %w (and screencap: %w)", werr, err)
		}
	}
	d.clipboard = hasClipboard(ctx, c)
	if d.apps, err = launcherApps(ctx, c); err != nil {
		return d, err
	}
	return d, nil
}

// errShell: a shell command failed (exit status not 0).
var errShell = errors.New("android: shell command failed")

// shell runs cmd and returns its output; a non-zero exit status is an
// error carrying the command's error output.
func shell(ctx context.Context, c *adb.Conn, cmd string) ([]byte, error) {
	res, err := c.Shell(ctx, cmd)
	if err != nil {
		return nil, err
	}
	if res.ExitCode > 0 {
		msg := strings.TrimSpace(string(res.Stderr))
		if msg == "" {
			msg = strings.TrimSpace(string(res.Stdout))
		}
		return res.Stdout, fmt.Errorf("%w: %s: exit status %d: %s", errShell, cmd, res.ExitCode, clip(msg))
	}
	return res.Stdout, nil
}

// clip shortens a command's message for an error.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// parseGetprop reads getprop's "[key]: [value]" lines.
func parseGetprop(out []byte) map[string]string {
	props := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "]: [")
		if !ok || !strings.HasPrefix(k, "[") || !strings.HasSuffix(v, "]") {
			continue
		}
		props[k[1:]] = v[:len(v)-1]
	}
	return props
}

var wmSizeRE = regexp.MustCompile(`(Physical|Override) size: (\d+)x(\d+)`)

// parseWMSize reads `wm size`: the override size when set, else the
// physical size.
func parseWMSize(out []byte) (image.Point, error) {
	var p image.Point
	for _, m := range wmSizeRE.FindAllSubmatch(out, -1) {
		w, _ := strconv.Atoi(string(m[2]))
		h, _ := strconv.Atoi(string(m[3]))
		if w > 0 && h > 0 && w <= maxScreenSide && h <= maxScreenSide && (p == image.Point{} || string(m[1]) == "Override") {
			p = image.Pt(w, h)
		}
	}
	if p == (image.Point{}) {
		return p, fmt.Errorf("android: wm size answered %q", clip(string(out)))
	}
	return p, nil
}

// hasClipboard reports whether the phone's shell sets and reads the
// clipboard: some builds answer `cmd clipboard`; AOSP's clipboard service
// has no shell command ("No shell command implementation.", exit 0).
func hasClipboard(ctx context.Context, c *adb.Conn) bool {
	res, err := c.Shell(ctx, "cmd clipboard help")
	if err != nil || res.ExitCode != 0 {
		return false
	}
	out := string(res.Stdout) + string(res.Stderr)
	return strings.Contains(out, "set") && !strings.Contains(out, "No shell command implementation") && !strings.Contains(out, "Can't find service")
}

// launcherActivities lists the phone's launcher activities (Android 7
// and later).
const launcherActivities = "cmd package query-activities --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER"

// launcherApps lists the apps with a launcher activity, falling back to
// every package where the package service cannot query activities.
func launcherApps(ctx context.Context, c *adb.Conn) ([]phone.App, error) {
	out, err := shell(ctx, c, launcherActivities)
	if err == nil {
		if apps := parseActivities(out); len(apps) > 0 {
			return apps, nil
		}
	}
	out, perr := shell(ctx, c, "pm list packages")
	if perr != nil {
		return nil, fmt.Errorf("android: the app list: %w (and %w)", perr, err)
	}
	return parsePackages(out), nil
}

// parseActivities reads query-activities --brief: component lines
// "package/activity" between the match lines.
func parseActivities(out []byte) []phone.App {
	var apps []phone.App
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		pkg, _, ok := strings.Cut(line, "/")
		if !ok || strings.ContainsAny(line, " =") || !validPackage(pkg) {
			continue
		}
		if !slices.ContainsFunc(apps, func(a phone.App) bool { return a.ID == pkg }) {
			apps = append(apps, phone.App{ID: pkg, Name: appName(pkg)})
		}
	}
	return apps
}

// parsePackages reads `pm list packages`: "package:NAME" lines.
func parsePackages(out []byte) []phone.App {
	var apps []phone.App
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if pkg, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "package:"); ok && validPackage(pkg) {
			apps = append(apps, phone.App{ID: pkg, Name: appName(pkg)})
		}
	}
	return apps
}

var packageRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$`)

// validPackage reports whether s is an Android package name (which is
// then safe on a shell line unquoted).
func validPackage(s string) bool { return len(s) <= 255 && packageRE.MatchString(s) }

// genericParts are package name parts that do not name an app.
var genericParts = []string{"com", "org", "net", "io", "android", "google", "apps", "app", "mobile", "www"}

// appName is a name for a package, from its last telling part
// (com.google.android.apps.maps: Maps): the shell has no app labels.
func appName(pkg string) string {
	parts := strings.Split(pkg, ".")
	name := parts[len(parts)-1]
	for i := len(parts) - 1; i >= 0; i-- {
		if !slices.Contains(genericParts, strings.ToLower(parts[i])) {
			name = parts[i]
			break
		}
	}
	return strings.ToUpper(name[:1]) + name[1:]
}
