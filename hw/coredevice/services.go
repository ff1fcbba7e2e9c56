package coredevice

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"strings"
	"unicode/utf8"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/remotexpc"
	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// DeviceInfo returns getdeviceinfo's output (model, OS, names; the keys
// are the device's).
func (c *Conn) DeviceInfo(ctx context.Context) (xpc.Dict, error) {
	out, err := c.invoke(ctx, DeviceInfoService, "getdeviceinfo", "", xpc.Dict{})
	if err != nil {
		return nil, err
	}
	d, ok := out.(xpc.Dict)
	if !ok {
		return nil, fmt.Errorf("coredevice: getdeviceinfo: output is %T", out)
	}
	return d, nil
}

// DisplaySize returns the main display's size in pixels (getdisplayinfo:
// displays[0].currentMode.size).
func (c *Conn) DisplaySize(ctx context.Context) (image.Point, error) {
	out, err := c.invoke(ctx, DeviceInfoService, "getdisplayinfo", "", xpc.Dict{})
	if err != nil {
		return image.Point{}, err
	}
	d, _ := out.(xpc.Dict)
	for _, v := range d.Array("displays") {
		disp, _ := v.(xpc.Dict)
		size := disp.Dict("currentMode").Array("size")
		if len(size) == 2 {
			w, okw := number(size[0])
			h, okh := number(size[1])
			if okw && okh && w > 0 && h > 0 {
				return image.Pt(int(w), int(h)), nil
			}
		}
	}
	return image.Point{}, fmt.Errorf("coredevice: getdisplayinfo: no display size in %v", keys(d))
}

// number reads the numeric types XPC carries.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case uint64:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// Screenshot captures the main display as PNG (screencaptureservice;
// about 2.8 s on a phone).
func (c *Conn) Screenshot(ctx context.Context) ([]byte, error) {
	out, err := c.invoke(ctx, ScreenCaptureService, "capturescreenshot", "capturescreenshot",
		xpc.Dict{{Key: "displayUniqueID", Value: nil}, {Key: "requestedFormat", Value: "png"}})
	if err != nil {
		return nil, err
	}
	d, _ := out.(xpc.Dict)
	img := d.Data("image")
	if !bytes.HasPrefix(img, []byte("\x89PNG\r\n\x1a\n")) {
		return nil, fmt.Errorf("coredevice: capturescreenshot: no PNG in the reply (%d bytes, format %q)", len(img), d.String("imageFormat"))
	}
	return img, nil
}

// ScreenshotImage captures and decodes the main display.
func (c *Conn) ScreenshotImage(ctx context.Context) (image.Image, error) {
	b, err := c.Screenshot(ctx)
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("coredevice: screenshot PNG: %w", err)
	}
	return img, nil
}

// App is an installed app as appservice lists it.
type App struct {
	BundleID string
	Name     string
	Raw      xpc.Dict
}

func appsFrom(elements []any) []App {
	var apps []App
	for _, e := range elements {
		d, ok := e.(xpc.Dict)
		if !ok || d.String("bundleIdentifier") == "" {
			continue
		}
		apps = append(apps, App{BundleID: d.String("bundleIdentifier"), Name: d.String("name"), Raw: d})
	}
	return apps
}

// listAppsInput is listapps' input; requireContainerAccess is required
// since iOS 26.
func listAppsInput() xpc.Dict {
	return xpc.Dict{
		{Key: "includeAppClips", Value: true},
		{Key: "includeRemovableApps", Value: true},
		{Key: "includeHiddenApps", Value: false},
		{Key: "includeInternalApps", Value: false},
		{Key: "includeDefaultApps", Value: true},
		{Key: "requireContainerAccess", Value: false},
		{Key: "includeAppGroupIdentifiers", Value: false},
		{Key: "includeContainerPaths", Value: false},
	}
}

// Apps lists the installed apps. Phones whose appservice advertises
// streamapplist are asked that way only: their listapps never answers and
// the stuck call wedges the daemon.
func (c *Conn) Apps(ctx context.Context) ([]App, error) {
	if s, ok := c.RSD.Service(AppService); ok && s.HasFeature(featurePrefix+"streamapplist") {
		return c.streamApps(ctx)
	}
	out, err := c.invoke(ctx, AppService, "listapps", "", listAppsInput())
	if err != nil {
		return nil, err
	}
	list, ok := out.([]any)
	if !ok {
		return nil, fmt.Errorf("coredevice: listapps: output is %T", out)
	}
	return appsFrom(list), nil
}

// Side-channel statuses of a streaming CoreDevice feature.
const sideChannelStatus = "CoreDevice.XPCMessageKey.sideChannelStatus"

func (c *Conn) streamApps(ctx context.Context) ([]App, error) {
	x, err := c.DialService(ctx, AppService)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	input := xpc.Dict{
		{Key: "actualInput", Value: listAppsInput()},
		{Key: "streamProxy", Value: xpc.Dict{{Key: "sideChannel", Value: newUUID()}}},
	}
	if err := x.Send(ctx, c.envelope("streamapplist", "", input), true); err != nil {
		return nil, err
	}
	var elements []any
	for {
		stream, m, err := x.Receive(ctx)
		if err != nil {
			return nil, fmt.Errorf("coredevice: streamapplist: %w", err)
		}
		if stream != remotexpc.ReplyStream {
			continue
		}
		st := m.Body.Dict(sideChannelStatus)
		switch {
		case st == nil:
			if _, err := output("streamapplist", m.Body); err != nil {
				return nil, err
			}
		case st.Dict("pushing") != nil:
			elements = append(elements, st.Dict("pushing").Array("elements")...)
		case hasKey(st, "finishStreaming"):
			return appsFrom(elements), nil
		case hasKey(st, "receivedError"):
			return nil, fmt.Errorf("coredevice: streamapplist: the phone reported an error: %v", st.Dict("receivedError"))
		}
	}
}

func hasKey(d xpc.Dict, k string) bool {
	_, ok := d.Get(k)
	return ok
}

// bplistEmptyDict is a binary property list holding an empty dictionary,
// which launch options carry as platformSpecificOptions.
var bplistEmptyDict = []byte("bplist00\xd0\x08\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x09")

// Launch starts the app with bundleID (natively, by bundle id) and
// returns its process id. terminate kills a running instance first. A
// locked phone never answers; ctx bounds the wait.
func (c *Conn) Launch(ctx context.Context, bundleID string, terminate bool) (int64, error) {
	return c.launch(ctx, bundleID, terminate, "")
}

func (c *Conn) launch(ctx context.Context, bundleID string, terminate bool, url string) (int64, error) {
	options := xpc.Dict{
		{Key: "arguments", Value: []any{}},
		{Key: "environmentVariables", Value: xpc.Dict{}},
		{Key: "standardIOUsesPseudoterminals", Value: true},
		{Key: "startStopped", Value: false},
		{Key: "terminateExisting", Value: terminate},
		{Key: "user", Value: xpc.Dict{{Key: "shortName", Value: "mobile"}}},
		{Key: "platformSpecificOptions", Value: bplistEmptyDict},
	}
	if url != "" {
		options = append(options, xpc.Entry{Key: "payloadURL", Value: xpc.Dict{{Key: "relative", Value: url}}})
	}
	input := xpc.Dict{
		{Key: "applicationSpecifier", Value: xpc.Dict{{Key: "bundleIdentifier", Value: xpc.Dict{{Key: "_0", Value: bundleID}}}}},
		{Key: "options", Value: options},
		{Key: "standardIOIdentifiers", Value: xpc.Dict{}},
	}
	out, err := c.invoke(ctx, AppService, "launchapplication", "", input)
	if err != nil {
		return 0, err
	}
	d, _ := out.(xpc.Dict)
	pid, ok := d.Dict("processToken").Get("processIdentifier")
	n, isInt := pid.(int64)
	if !ok || !isInt {
		if u, isUint := pid.(uint64); isUint {
			return int64(u), nil
		}
		return 0, fmt.Errorf("coredevice: launchapplication: no process identifier in %v", keys(d))
	}
	return n, nil
}

// schemeApps are the system apps that take URL schemes iOS reserves for
// them; a URL of another scheme goes to an installed app that declares
// it (see URLHandler), else to Safari, which hands it to the app that
// registered the scheme.
var schemeApps = map[string]string{
	"http": "com.apple.mobilesafari", "https": "com.apple.mobilesafari",
	"tel": "com.apple.mobilephone", "facetime": "com.apple.facetime", "facetime-audio": "com.apple.facetime",
	"sms": "com.apple.MobileSMS", "imessage": "com.apple.MobileSMS", "mailto": "com.apple.mobilemail", "message": "com.apple.mobilemail",
	"maps": "com.apple.Maps", "prefs": "com.apple.Preferences", "app-prefs": "com.apple.Preferences",
	"music": "com.apple.Music", "itms-apps": "com.apple.AppStore", "itms-appss": "com.apple.AppStore",
	"shortcuts": "com.apple.shortcuts", "calshow": "com.apple.mobilecal", "x-apple-reminderkit": "com.apple.reminders",
	"mobilenotes": "com.apple.mobilenotes", "photos-redirect": "com.apple.mobileslideshow", "shareddocuments": "com.apple.DocumentsApp",
}

// URLHandler returns the app that opens rawURL and whether it is the
// scheme's own app (false: Safari hands the URL on). apps are the
// installed apps; an app whose list entry declares the scheme (its
// CFBundleURLSchemes, where the phone reports them) takes it.
func URLHandler(rawURL string, apps []App) (bundleID string, own bool, err error) {
	i := strings.Index(rawURL, ":")
	if i <= 0 {
		return "", false, fmt.Errorf("coredevice: open URL %q: no scheme", rawURL)
	}
	scheme := strings.ToLower(rawURL[:i])
	if id, ok := schemeApps[scheme]; ok {
		return id, true, nil
	}
	for _, a := range apps {
		for _, s := range urlSchemes(a.Raw) {
			if strings.EqualFold(s, scheme) {
				return a.BundleID, true, nil
			}
		}
	}
	return SafariID, false, nil
}

// SafariID is the browser's bundle id.
const SafariID = "com.apple.mobilesafari"

// urlSchemes reads the schemes an app's list entry declares, if any.
func urlSchemes(d xpc.Dict) []string {
	var out []string
	for _, t := range d.Array("CFBundleURLTypes") {
		td, _ := t.(xpc.Dict)
		for _, s := range td.Array("CFBundleURLSchemes") {
			if str, ok := s.(string); ok {
				out = append(out, str)
			}
		}
	}
	for _, s := range d.Array("urlSchemes") {
		if str, ok := s.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

// OpenURL opens rawURL by launching the app that takes it with the URL
// as its payload (devicectl's --payload-url). Safari keeps running; a
// scheme's own app is restarted, since many apps read the URL only at a
// cold launch. It returns the app's bundle id.
func (c *Conn) OpenURL(ctx context.Context, rawURL string, apps []App) (string, error) {
	id, own, err := URLHandler(rawURL, apps)
	if err != nil {
		return "", err
	}
	restart := own && id != SafariID
	if _, err := c.launch(ctx, id, restart, rawURL); err != nil {
		return id, err
	}
	return id, nil
}

// OpenURLIn opens rawURL in the app bundleID: Safari keeps running, any
// other app is restarted first (many read a URL only at a cold launch).
func (c *Conn) OpenURLIn(ctx context.Context, rawURL, bundleID string) error {
	_, err := c.launch(ctx, bundleID, bundleID != SafariID, rawURL)
	return err
}

// Pasteboard UTIs for text, in the order devices list them.
var textTypes = []string{"public.utf8-plain-text", "public.plain-text", "public.text"}

// Clipboard returns the general pasteboard's text ("" when it holds none)
// and its change count.
func (c *Conn) Clipboard(ctx context.Context) (string, uint64, error) {
	reply, err := c.pasteboard(ctx, xpc.Dict{
		{Key: "command", Value: "PULL"},
		{Key: "pasteboardName", Value: "general"},
		{Key: "dataPolicy", Value: xpc.Dict{{Key: "allResolved", Value: xpc.Dict{}}}},
	})
	if err != nil {
		return "", 0, err
	}
	if cmd := reply.String("command"); cmd != "PULL_REPLY" {
		return "", 0, fmt.Errorf("coredevice: pasteboard: reply %q to PULL", cmd)
	}
	pb := reply.Dict("pasteboard")
	count, _ := pb.Dict("metadata").Uint("changeCount")
	for _, it := range pb.Array("items") {
		item, _ := it.(xpc.Dict)
		data := item.Dict("data")
		for _, t := range textTypes {
			if b := data.Dict(t).Data("data"); b != nil && utf8.Valid(b) {
				return string(b), count, nil
			}
		}
	}
	return "", count, nil
}

// SetClipboard replaces the general pasteboard with text. Devices have
// answered a SET and kept the old contents, so it reads back to check.
func (c *Conn) SetClipboard(ctx context.Context, text string) error {
	data := xpc.Dict{}
	types := []any{}
	for _, t := range textTypes {
		types = append(types, t)
		data = append(data, xpc.Entry{Key: t, Value: xpc.Dict{{Key: "data", Value: []byte(text)}}})
	}
	if _, err := c.pasteboard(ctx, xpc.Dict{
		{Key: "command", Value: "SET"},
		{Key: "pasteboardName", Value: "general"},
		{Key: "items", Value: []any{xpc.Dict{{Key: "types", Value: types}, {Key: "data", Value: data}}}},
		{Key: "sourceMetadata", Value: nil},
	}); err != nil {
		return err
	}
	got, _, err := c.Clipboard(ctx)
	if err != nil {
		return err
	}
	if got != text {
		return fmt.Errorf("coredevice: pasteboard: the phone kept its old contents after SET")
	}
	return nil
}

func (c *Conn) pasteboard(ctx context.Context, req xpc.Dict) (xpc.Dict, error) {
	x, err := c.DialService(ctx, PasteboardService)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	reply, err := x.Request(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("coredevice: pasteboard %s: %w", req.String("command"), err)
	}
	return reply, nil
}

// RemoteLockdownService is lockdown over the tunnel (RSDCheckin).
const RemoteLockdownService = "com.apple.mobile.lockdown.remote.trusted"

// DeveloperMode reports whether Developer Mode is on (Settings > Privacy
// & Security > Developer Mode; the phone restarts to turn it on). The
// CoreDevice services beyond the basics need it.
func (c *Conn) DeveloperMode(ctx context.Context) (bool, error) {
	s, ok := c.RSD.Service(RemoteLockdownService)
	if !ok {
		return false, fmt.Errorf("%w: %s", ErrNoService, RemoteLockdownService)
	}
	tc, err := c.net.DialTCP(ctx, s.Port)
	if err != nil {
		return false, fmt.Errorf("coredevice: remote lockdown: %w", err)
	}
	lc := lockdown.NewClient(tc, "")
	defer lc.Close()
	if err := lc.Checkin(ctx); err != nil {
		return false, fmt.Errorf("coredevice: remote lockdown: %w", err)
	}
	v, err := lc.GetValue(ctx, "com.apple.security.mac.amfi", "DeveloperModeStatus")
	if err != nil {
		return false, fmt.Errorf("coredevice: developer mode status: %w", err)
	}
	on, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("coredevice: developer mode status is %T", v)
	}
	return on, nil
}
