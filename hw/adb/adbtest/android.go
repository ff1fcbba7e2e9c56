package adbtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Package is an app installed on a [Phone]: its package name and its
// launcher activity ("" for a package with none, such as a service).
type Package struct {
	Name, Activity string
}

// Phone is a fake Android shell behind a [Device] (its Handler): it
// answers the commands a host drives a phone with, as Android 14 does,
// and records what it was told. Set its fields before the first
// command; the zero value is a 1080×2400 Pixel with a few apps.
type Phone struct {
	// Width and Height are the screen's size in its current rotation
	// (0: 1080×2400).
	Width, Height int
	// Props are getprop's properties (nil: a Pixel 7 on Android 14).
	Props map[string]string
	// Packages are the installed packages (nil: Settings, Chrome, Maps
	// and a service without an activity).
	Packages []Package
	// NoQueryActivities makes `cmd package query-activities` unknown,
	// as on Android before 7, so a host must fall back to pm.
	NoQueryActivities bool
	// Clipboard makes `cmd clipboard` work; without it the service
	// answers "No shell command implementation." as AOSP's does.
	Clipboard bool
	// UI is what `uiautomator dump` writes (nil: a small settings screen).
	UI []byte
	// IdleFailures is how many `uiautomator dump` calls fail with "could
	// not get idle state" before one succeeds.
	IdleFailures int
	// ScreencapWarning is a line screencap writes before the picture (a
	// phone with several displays warns so, and exec mixes it in).
	ScreencapWarning string

	mu       sync.Mutex
	inputs   []string
	starts   []string
	clip     string
	files    map[string][]byte
	shots    int
	pngShots int
}

// Inputs returns the `input` commands the phone ran, their arguments
// unquoted and joined by spaces ("tap 540 1200", "text hello world").
func (p *Phone) Inputs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.inputs)
}

// Starts returns what `am start` and `monkey` started: "view URL" for a
// URL, "launch PACKAGE" for an app.
func (p *Phone) Starts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.starts)
}

// ClipboardText is what the clipboard holds.
func (p *Phone) ClipboardText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clip
}

// Screenshots counts the raw and PNG screencaps taken.
func (p *Phone) Screenshots() (raw, png int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.shots, p.pngShots
}

// Install adds a package while the phone runs.
func (p *Phone) Install(pkg Package) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Packages = append(slices.Clone(p.packages()), pkg)
}

// SetSize turns or resizes the screen while the phone runs.
func (p *Phone) SetSize(w, h int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Width, p.Height = w, h
}

func (p *Phone) size() (int, int) {
	if p.Width == 0 || p.Height == 0 {
		return 1080, 2400
	}
	return p.Width, p.Height
}

// DefaultProps are a Pixel 7's properties on Android 14.
var DefaultProps = map[string]string{
	"ro.product.model":          "Pixel 7",
	"ro.product.manufacturer":   "Google",
	"ro.build.version.release":  "14",
	"ro.build.version.sdk":      "34",
	"ro.product.device":         "panther",
	"ro.build.fingerprint":      "google/panther/panther:14/UQ1A.240205.004/11269751:user/release-keys",
	"persist.sys.locale":        "en-US",
	"ro.build.characteristics":  "nosdcard",
	"ro.build.version.security": "2024-02-05",
}

// DefaultPackages are the packages of the zero Phone.
var DefaultPackages = []Package{
	{Name: "com.android.settings", Activity: "com.android.settings.Settings"},
	{Name: "com.android.chrome", Activity: "com.google.android.apps.chrome.Main"},
	{Name: "com.google.android.apps.maps", Activity: "com.google.android.maps.MapsActivity"},
	{Name: "com.android.providers.downloads"},
}

// DefaultUI is the zero Phone's screen as uiautomator dumps it.
var DefaultUI = []byte(`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]"><node index="0" text="Settings" resource-id="com.android.settings:id/title" class="android.widget.TextView" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[48,180][400,260]" /><node index="1" text="" resource-id="com.android.settings:id/search" class="android.widget.EditText" package="com.android.settings" content-desc="Search settings" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="true" password="false" selected="false" bounds="[48,300][1032,420]" /><node index="2" text="" resource-id="android:id/list" class="androidx.recyclerview.widget.RecyclerView" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="true" focused="false" scrollable="true" long-clickable="false" password="false" selected="false" bounds="[0,450][1080,2400]"><node index="0" text="" resource-id="" class="android.widget.LinearLayout" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,450][1080,650]"><node index="0" text="Wi‑Fi" resource-id="android:id/title" class="android.widget.TextView" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[200,480][600,560]" /><node index="1" text="" resource-id="android:id/switch_widget" class="android.widget.Switch" package="com.android.settings" content-desc="" checkable="true" checked="true" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[900,500][1032,600]" /></node><node index="1" text="" resource-id="com.android.settings:id/logo" class="android.widget.ImageView" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,700][1080,900]" /><node index="2" text="" resource-id="" class="android.view.View" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,900][1080,950]" /></node></node></hierarchy>`)

// Handle runs one command line: it is the Phone's [Handler].
func (p *Phone) Handle(ctx context.Context, line string, stdout, stderr io.Writer) int {
	words, err := SplitShell(line)
	if err != nil {
		fmt.Fprintf(stderr, "/system/bin/sh: syntax error: %v\n", err)
		return 2
	}
	// Commands chained with && run while each succeeds.
	code := 0
	for len(words) > 0 {
		i := slices.Index(words, "&&")
		if i < 0 {
			i = len(words)
		}
		if code = p.run(words[:i], stdout, stderr); code != 0 {
			return code
		}
		words = words[min(i+1, len(words)):]
	}
	return code
}

func (p *Phone) run(argv []string, stdout, stderr io.Writer) int {
	if len(argv) == 0 {
		return 0
	}
	// Output redirected away is dropped.
	if n := len(argv); n >= 2 && argv[n-2] == ">" {
		argv, stdout = argv[:n-2], io.Discard
	} else if strings.HasPrefix(argv[n-1], ">") {
		argv, stdout = argv[:n-1], io.Discard
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch argv[0] {
	case "screencap":
		return p.screencap(argv[1:], stdout, stderr)
	case "wm":
		if len(argv) == 2 && argv[1] == "size" {
			w, h := p.size()
			fmt.Fprintf(stdout, "Physical size: %dx%d\n", min(w, h), max(w, h))
			return 0
		}
	case "getprop":
		props := p.Props
		if props == nil {
			props = DefaultProps
		}
		if len(argv) == 2 {
			fmt.Fprintln(stdout, props[argv[1]])
			return 0
		}
		for _, k := range slices.Sorted(maps.Keys(props)) {
			fmt.Fprintf(stdout, "[%s]: [%s]\n", k, props[k])
		}
		return 0
	case "input":
		return p.input(argv[1:], stderr)
	case "cmd":
		return p.cmd(argv[1:], stdout, stderr)
	case "pm":
		if len(argv) >= 3 && argv[1] == "list" && argv[2] == "packages" {
			for _, pkg := range p.packages() {
				fmt.Fprintf(stdout, "package:%s\n", pkg.Name)
			}
			return 0
		}
	case "monkey":
		return p.monkey(argv[1:], stdout)
	case "am":
		return p.am(argv[1:], stdout, stderr)
	case "uiautomator":
		if len(argv) == 3 && argv[1] == "dump" {
			if p.IdleFailures > 0 {
				p.IdleFailures--
				fmt.Fprintln(stderr, "ERROR: could not get idle state.")
				return 1
			}
			ui := p.UI
			if ui == nil {
				ui = DefaultUI
			}
			if argv[2] == "/dev/tty" {
				stdout.Write(ui)
			} else {
				if p.files == nil {
					p.files = map[string][]byte{}
				}
				p.files[argv[2]] = ui
			}
			fmt.Fprintf(stdout, "UI hierchary dumped to: %s\n", argv[2])
			return 0
		}
	case "cat":
		if len(argv) == 2 {
			if b, ok := p.files[argv[1]]; ok {
				stdout.Write(b)
				return 0
			}
			fmt.Fprintf(stderr, "cat: %s: No such file or directory\n", argv[1])
			return 1
		}
	case "echo":
		fmt.Fprintln(stdout, strings.Join(argv[1:], " "))
		return 0
	}
	fmt.Fprintf(stderr, "/system/bin/sh: %s: inaccessible or not found\n", strings.Join(argv, " "))
	return 127
}

func (p *Phone) packages() []Package {
	if p.Packages == nil {
		return DefaultPackages
	}
	return p.Packages
}

func (p *Phone) screencap(args []string, stdout, stderr io.Writer) int {
	w, h := p.size()
	img := Screen(w, h)
	switch {
	case len(args) == 0:
		p.shots++
		if p.ScreencapWarning != "" {
			fmt.Fprintln(stdout, p.ScreencapWarning)
		}
		stdout.Write(EncodeScreencap(img))
	case len(args) == 1 && args[0] == "-p":
		p.pngShots++
		png.Encode(stdout, img)
	default:
		fmt.Fprintf(stderr, "screencap: unknown arguments %q\n", args)
		return 1
	}
	return 0
}

// inputUsage is what `input` prints when it does not know its command.
const inputUsage = "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n"

func (p *Phone) input(args []string, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, inputUsage)
		return 1
	}
	nums := func(n int) bool {
		if len(args) != n+1 {
			return false
		}
		for _, a := range args[1:] {
			if _, err := strconv.Atoi(a); err != nil {
				return false
			}
		}
		return true
	}
	switch args[0] {
	case "tap":
		if !nums(2) {
			goto bad
		}
	case "swipe":
		if !nums(4) && !nums(5) {
			goto bad
		}
	case "keyevent", "keycombination":
		if len(args) < 2 {
			goto bad
		}
		for _, k := range args[1:] {
			if !strings.HasPrefix(k, "KEYCODE_") {
				if _, err := strconv.Atoi(k); err != nil {
					goto bad
				}
			}
		}
		if args[0] == "keyevent" && len(args) == 2 && args[1] == "KEYCODE_PASTE" {
			p.inputs = append(p.inputs, "paste "+p.clip)
			return 0
		}
	case "text":
		if len(args) != 2 {
			goto bad
		}
		for _, r := range args[1] {
			if r < 0x20 || r > 0x7e {
				// What InputShellCommand does with a character
				// the virtual keyboard has no key for.
				fmt.Fprintln(stderr, "Exception occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get length of null array")
				return 255
			}
		}
		p.inputs = append(p.inputs, "text "+inputText(args[1]))
		return 0
	default:
		goto bad
	}
	p.inputs = append(p.inputs, strings.Join(args, " "))
	return 0
bad:
	fmt.Fprint(stderr, inputUsage)
	return 1
}

// inputText is what `input text` types for arg: "%s" is a space.
func inputText(arg string) string {
	b := []byte(arg)
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+1 < len(b) && b[i+1] == 's' {
			out = append(out, ' ')
			i++
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

func (p *Phone) cmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return 1
	}
	switch args[0] {
	case "package":
		if len(args) >= 2 && args[1] == "query-activities" && !p.NoQueryActivities {
			if !slices.Contains(args, "android.intent.category.LAUNCHER") {
				return 0
			}
			for _, pkg := range p.packages() {
				if pkg.Activity == "" {
					continue
				}
				fmt.Fprintln(stdout, "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false")
				fmt.Fprintf(stdout, "%s/%s\n", pkg.Name, pkg.Activity)
			}
			return 0
		}
		fmt.Fprintf(stderr, "Unknown command: %s\n", strings.Join(args[1:], " "))
		return 255
	case "clipboard":
		if !p.Clipboard {
			fmt.Fprintln(stderr, "No shell command implementation.")
			return 0
		}
		switch {
		case len(args) == 3 && args[1] == "set":
			p.clip = args[2]
			return 0
		case len(args) == 2 && args[1] == "get":
			fmt.Fprintln(stdout, p.clip)
			return 0
		case len(args) == 2 && args[1] == "help":
			fmt.Fprintln(stdout, "Clipboard service commands:\n  set TEXT\n  get")
			return 0
		}
	}
	fmt.Fprintf(stderr, "cmd: Can't find service: %s\n", args[0])
	return 20
}

func (p *Phone) monkey(args []string, stdout io.Writer) int {
	i := slices.Index(args, "-p")
	if i < 0 || i+1 >= len(args) {
		fmt.Fprintln(stdout, "** Error: no package given")
		return 1
	}
	name := args[i+1]
	for _, pkg := range p.packages() {
		if pkg.Name == name && pkg.Activity != "" {
			p.starts = append(p.starts, "launch "+name)
			fmt.Fprintln(stdout, "  bash arg: -p\n  bash arg: "+name+"\nEvents injected: 1\n## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)")
			return 0
		}
	}
	fmt.Fprintln(stdout, "** No activities found to run, monkey aborted.")
	return 252
}

func (p *Phone) am(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "start" {
		fmt.Fprintln(stderr, "am: unknown command")
		return 1
	}
	var action, data string
	for i := 1; i+1 < len(args); i++ {
		switch args[i] {
		case "-a":
			action = args[i+1]
		case "-d":
			data = args[i+1]
		}
	}
	if action != "android.intent.action.VIEW" || data == "" {
		fmt.Fprintln(stderr, "Error: Activity not started, unable to resolve Intent")
		return 1
	}
	p.starts = append(p.starts, "view "+data)
	fmt.Fprintf(stdout, "Starting: Intent { act=%s dat=%s }\n", action, data)
	return 0
}

// SplitShell splits a command line into words as Android's shell (mksh)
// does for the commands a host sends: whitespace separates words, single
// quotes keep everything literally, double quotes keep all but \ $ ` ",
// and a backslash outside quotes escapes the next character. && is a
// word of its own.
func SplitShell(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated quote")
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\\$`\"", line[i+1]) >= 0 {
					i++
				} else if line[i] == '$' || line[i] == '`' {
					return nil, fmt.Errorf("expansion in double quotes at %d", i)
				}
				w.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, fmt.Errorf("unterminated double quote")
			}
			inWord = true
		case c == '\\':
			if i+1 < len(line) {
				i++
				w.WriteByte(line[i])
			}
			inWord = true
		case strings.IndexByte("|;<()$`*?[", c) >= 0 || (c == '#' || c == '~') && !inWord:
			// A metacharacter the host should have quoted: the
			// real shell would expand or run it.
			return nil, fmt.Errorf("unquoted %q at %d", c, i)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// Screen is the fake phone's picture: a vertical gradient with a band
// per 100 rows, and in the middle third a textured "photo" (so a PNG of
// it is as hard to compress as a real screen's), the same for every
// call: a decoded frame can be checked pixel by pixel.
func Screen(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	seed := uint32(2463534242)
	for y := range h {
		c := color.NRGBA{R: byte(y * 255 / h), G: byte(y / 100 * 40), B: 0x80, A: 0xff}
		photo := y >= h/3 && y < 2*h/3
		row := img.Pix[y*img.Stride : y*img.Stride+w*4]
		for x := 0; x < w*4; x += 4 {
			row[x], row[x+1], row[x+2], row[x+3] = c.R, c.G, c.B, c.A
			if photo {
				seed ^= seed << 13
				seed ^= seed >> 17
				seed ^= seed << 5
				row[x] += byte(seed & 0x1f)
				row[x+1] += byte(seed >> 8 & 0x1f)
			}
		}
	}
	return img
}

// EncodeScreencap writes img as `screencap` raw RGBA_8888 with the
// colour space word, as a current phone sends it.
func EncodeScreencap(img *image.NRGBA) []byte {
	r := img.Bounds()
	w, h := r.Dx(), r.Dy()
	var b bytes.Buffer
	b.Grow(16 + w*h*4)
	for _, v := range []uint32{uint32(w), uint32(h), 1 /* RGBA_8888 */, 1 /* sRGB */} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	for y := range h {
		row := img.Pix[y*img.Stride : y*img.Stride+w*4]
		b.Write(row)
	}
	return b.Bytes()
}
