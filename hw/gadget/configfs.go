package gadget

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/openlolo/openlolo/hw/hid"
)

// DefaultConfigFS is where configfs keeps USB gadgets.
const DefaultConfigFS = "/sys/kernel/config/usb_gadget"

// MaxPowerLimit is the largest MaxPower (mA) the box declares: iOS cuts
// the port of a bus-powered device that asks for more.
const MaxPowerLimit = 100

// Identity is what the gadget tells the phone it is.
type Identity struct {
	// VendorID and ProductID; zero means 0x1d6b (Linux Foundation) and
	// 0x0104 (Multifunction Composite Gadget).
	VendorID, ProductID uint16
	// Device is bcdDevice; zero means 0x0100. Bump it when the functions
	// change so a host does not reuse what it cached.
	Device uint16
	// Manufacturer, Product and Serial are the USB strings; empty
	// Manufacturer and Product mean "openlolo" and "openlolo box". An
	// empty Serial is left out.
	Manufacturer, Product, Serial string
	// MaxPowerMA is the configuration's MaxPower in mA; 0 means 100. More
	// than MaxPowerLimit is an error.
	MaxPowerMA int
}

// Layout is the whole composite gadget: identity and HID functions in
// the order they are linked (interface numbers follow it; the pointer
// goes last).
type Layout struct {
	// Name is the gadget's folder under the configfs root; "" means
	// "openlolo".
	Name      string
	Identity  Identity
	Functions []hid.Function
}

// configName is the single configuration every gadget has.
const configName = "c.1"

// bmAttributes: bit 7 (reserved, set) | self-powered. The box is powered
// through the GPIO header or a splitter, not by the phone.
const bmAttributes = 0xc0

// dir returns l's folder under root.
func (l Layout) dir(root string) string {
	name := l.Name
	if name == "" {
		name = "openlolo"
	}
	return filepath.Join(root, name)
}

// validate checks l before anything is written.
func (l Layout) validate() error {
	if l.Identity.MaxPowerMA < 0 || l.Identity.MaxPowerMA > MaxPowerLimit {
		return fmt.Errorf("gadget: MaxPower %d mA is outside 0..%d (iOS refuses devices that draw more)", l.Identity.MaxPowerMA, MaxPowerLimit)
	}
	if len(l.Functions) == 0 {
		return errors.New("gadget: layout has no functions")
	}
	seen := map[string]bool{}
	for _, f := range l.Functions {
		if f.Name == "" || strings.ContainsAny(f.Name, "/. ") {
			return fmt.Errorf("gadget: function name %q is not a plain word", f.Name)
		}
		if seen[f.Name] {
			return fmt.Errorf("gadget: function %q appears twice", f.Name)
		}
		seen[f.Name] = true
		if f.ReportLength <= 0 || len(f.Descriptor) == 0 {
			return fmt.Errorf("gadget: function %q has no report length or descriptor", f.Name)
		}
	}
	return nil
}

// attrs returns the gadget-level attributes as (path relative to the
// gadget folder, value) in write order.
func (l Layout) attrs() [][2]string {
	id := l.Identity
	or := func(v, d uint16) uint16 {
		if v == 0 {
			return d
		}
		return v
	}
	ors := func(v, d string) string {
		if v == "" {
			return d
		}
		return v
	}
	power := id.MaxPowerMA
	if power == 0 {
		power = MaxPowerLimit
	}
	a := [][2]string{
		{"idVendor", fmt.Sprintf("0x%04x", or(id.VendorID, 0x1d6b))},
		{"idProduct", fmt.Sprintf("0x%04x", or(id.ProductID, 0x0104))},
		{"bcdDevice", fmt.Sprintf("0x%04x", or(id.Device, 0x0100))},
		{"bcdUSB", "0x0200"},
		{"strings/0x409/manufacturer", ors(id.Manufacturer, "openlolo")},
		{"strings/0x409/product", ors(id.Product, "openlolo box")},
	}
	if id.Serial != "" {
		a = append(a, [2]string{"strings/0x409/serialnumber", id.Serial})
	}
	return append(a,
		[2]string{"configs/" + configName + "/strings/0x409/configuration", "HID"},
		[2]string{"configs/" + configName + "/MaxPower", strconv.Itoa(power)},
		[2]string{"configs/" + configName + "/bmAttributes", fmt.Sprintf("0x%02x", bmAttributes)},
	)
}

// Reconciler applies a Layout to configfs.
type Reconciler struct {
	// Root is the configfs gadget root; "" means DefaultConfigFS.
	Root string
	// rmdir removes a configfs folder; nil means os.Remove (rmdir(2)).
	rmdir func(string) error
	// writes counts attribute writes and link changes (for tests).
	writes int
}

func (r *Reconciler) root() string {
	if r.Root == "" {
		return DefaultConfigFS
	}
	return r.Root
}

func (r *Reconciler) remove(p string) error {
	if r.rmdir != nil {
		return r.rmdir(p)
	}
	return os.Remove(p)
}

// Reconcile makes the gadget match l, writing only what differs. When
// something must change and the gadget is bound, it unbinds first (the
// kernel refuses changes to a bound gadget) and reports bound=false;
// callers then Bind again. Functions not in l are removed; links are
// recreated, in l's order, whenever the set of functions or any function
// changed. It reports whether anything changed.
func (r *Reconciler) Reconcile(l Layout) (changed bool, err error) {
	if err := l.validate(); err != nil {
		return false, err
	}
	if _, err := os.Stat(r.root()); err != nil {
		return false, fmt.Errorf("gadget: configfs %s is missing (is configfs mounted and libcomposite loaded?): %w", r.root(), err)
	}
	g := l.dir(r.root())
	unbound := false
	// before runs ahead of the first change: unbind a bound gadget.
	before := func() error {
		if unbound {
			return nil
		}
		unbound = true
		changed = true
		cur, err := readTrim(filepath.Join(g, "UDC"))
		if err == nil && cur != "" {
			if err := os.WriteFile(filepath.Join(g, "UDC"), []byte("\n"), 0o644); err != nil {
				return fmt.Errorf("gadget: unbind %s from %s: %w", g, cur, err)
			}
		}
		return nil
	}
	mkdir := func(p string) error {
		if _, err := os.Stat(p); err == nil {
			return nil
		}
		if err := before(); err != nil {
			return err
		}
		r.writes++
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("gadget: mkdir %s: %w", p, err)
		}
		return nil
	}
	set := func(p string, want []byte, optional bool) error {
		cur, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) && optional {
			return nil
		}
		if err == nil && same(cur, want) {
			return nil
		}
		if err := before(); err != nil {
			return err
		}
		r.writes++
		if err := os.WriteFile(p, want, 0o644); err != nil {
			return fmt.Errorf("gadget: write %s: %w", p, err)
		}
		return nil
	}

	for _, d := range []string{g, filepath.Join(g, "strings/0x409"), filepath.Join(g, "configs", configName, "strings/0x409")} {
		if err := mkdir(d); err != nil {
			return changed, err
		}
	}
	for _, a := range l.attrs() {
		if err := set(filepath.Join(g, a[0]), []byte(a[1]), false); err != nil {
			return changed, err
		}
	}

	// Functions: collect what exists, then check each wanted one.
	cfg := filepath.Join(g, "configs", configName)
	links, err := r.links(cfg)
	if err != nil {
		return changed, err
	}
	var wantLinks []string
	for _, f := range l.Functions {
		wantLinks = append(wantLinks, "hid."+f.Name)
	}
	relink := !slices.Equal(sorted(links), sorted(wantLinks))
	existing, _ := filepath.Glob(filepath.Join(g, "functions", "hid.*"))
	for _, e := range existing {
		if !slices.Contains(wantLinks, filepath.Base(e)) {
			relink = true
		}
	}
	var fnChanged bool
	for _, f := range l.Functions {
		d := filepath.Join(g, "functions", "hid."+f.Name)
		cur, ok := readFunction(d)
		if ok && cur.matches(f) {
			continue
		}
		fnChanged = true
	}
	if relink || fnChanged {
		if err := before(); err != nil {
			return changed, err
		}
		// The kernel refuses to change a function that is linked.
		for _, ln := range links {
			r.writes++
			if err := os.Remove(filepath.Join(cfg, ln)); err != nil {
				return changed, fmt.Errorf("gadget: unlink %s: %w", ln, err)
			}
		}
		for _, e := range existing {
			if !slices.Contains(wantLinks, filepath.Base(e)) {
				r.writes++
				if err := r.remove(e); err != nil {
					return changed, fmt.Errorf("gadget: remove function %s: %w", e, err)
				}
			}
		}
		for _, f := range l.Functions {
			d := filepath.Join(g, "functions", "hid."+f.Name)
			if err := mkdir(d); err != nil {
				return changed, err
			}
			for _, a := range [][2]string{
				{"subclass", strconv.Itoa(int(f.Subclass))},
				{"protocol", strconv.Itoa(int(f.Protocol))},
				{"report_length", strconv.Itoa(f.ReportLength)},
			} {
				if err := set(filepath.Join(d, a[0]), []byte(a[1]), false); err != nil {
					return changed, err
				}
			}
			if err := set(filepath.Join(d, "report_desc"), f.Descriptor, false); err != nil {
				return changed, err
			}
			// Newer kernels only: one IN endpoint per function is
			// enough and the Pi's dwc2 has few endpoints.
			if err := set(filepath.Join(d, "no_out_endpoint"), []byte("1"), true); err != nil {
				return changed, err
			}
		}
		for _, ln := range wantLinks {
			r.writes++
			if err := os.Symlink(filepath.Join(g, "functions", ln), filepath.Join(cfg, ln)); err != nil {
				return changed, fmt.Errorf("gadget: link %s: %w", ln, err)
			}
		}
	}
	return changed, nil
}

// links lists the function links in a configuration folder.
func (r *Reconciler) links(cfg string) ([]string, error) {
	ents, err := os.ReadDir(cfg)
	if err != nil {
		return nil, fmt.Errorf("gadget: read %s: %w", cfg, err)
	}
	var out []string
	for _, e := range ents {
		if e.Type()&fs.ModeSymlink != 0 {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// function is what a function folder holds now.
type function struct {
	subclass, protocol, length string
	desc                       []byte
}

func readFunction(d string) (function, bool) {
	var f function
	var err error
	read := func(name string) string {
		if err != nil {
			return ""
		}
		var s string
		s, err = readTrim(filepath.Join(d, name))
		return s
	}
	f.subclass, f.protocol, f.length = read("subclass"), read("protocol"), read("report_length")
	if err != nil {
		return f, false
	}
	f.desc, err = os.ReadFile(filepath.Join(d, "report_desc"))
	return f, err == nil
}

func (f function) matches(want hid.Function) bool {
	return same([]byte(f.subclass), []byte(strconv.Itoa(int(want.Subclass)))) &&
		same([]byte(f.protocol), []byte(strconv.Itoa(int(want.Protocol)))) &&
		same([]byte(f.length), []byte(strconv.Itoa(want.ReportLength))) &&
		bytes.Equal(f.desc, want.Descriptor)
}

// same compares an attribute as read back with the value to write:
// trailing newlines do not count and numbers compare by value (configfs
// reads idVendor back as "0x1d6b\n", MaxPower as "100\n").
func same(cur, want []byte) bool {
	c, w := strings.TrimRight(string(cur), "\n"), strings.TrimRight(string(want), "\n")
	if c == w {
		return true
	}
	cn, err1 := strconv.ParseInt(c, 0, 64)
	wn, err2 := strconv.ParseInt(w, 0, 64)
	return err1 == nil && err2 == nil && cn == wn
}

func readTrim(p string) (string, error) {
	b, err := os.ReadFile(p)
	return strings.TrimSpace(string(b)), err
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// Teardown unbinds and removes the gadget l.Name in the order configfs
// requires: links, configuration strings, configuration, functions,
// gadget strings, gadget. A missing gadget is not an error.
func (r *Reconciler) Teardown(name string) error {
	g := Layout{Name: name}.dir(r.root())
	if _, err := os.Stat(g); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if cur, _ := readTrim(filepath.Join(g, "UDC")); cur != "" {
		if err := os.WriteFile(filepath.Join(g, "UDC"), []byte("\n"), 0o644); err != nil {
			return fmt.Errorf("gadget: teardown: unbind: %w", err)
		}
	}
	cfgs, _ := filepath.Glob(filepath.Join(g, "configs", "*"))
	for _, cfg := range cfgs {
		links, err := r.links(cfg)
		if err != nil {
			return fmt.Errorf("gadget: teardown: %w", err)
		}
		for _, ln := range links {
			if err := os.Remove(filepath.Join(cfg, ln)); err != nil {
				return fmt.Errorf("gadget: teardown: unlink %s: %w", ln, err)
			}
		}
		strs, _ := filepath.Glob(filepath.Join(cfg, "strings", "*"))
		for _, s := range strs {
			if err := r.remove(s); err != nil {
				return fmt.Errorf("gadget: teardown: %w", err)
			}
		}
		if err := r.remove(cfg); err != nil {
			return fmt.Errorf("gadget: teardown: %w", err)
		}
	}
	fns, _ := filepath.Glob(filepath.Join(g, "functions", "*"))
	strs, _ := filepath.Glob(filepath.Join(g, "strings", "*"))
	for _, d := range append(fns, strs...) {
		if err := r.remove(d); err != nil {
			return fmt.Errorf("gadget: teardown: %w", err)
		}
	}
	if err := r.remove(g); err != nil {
		return fmt.Errorf("gadget: teardown: %w", err)
	}
	return nil
}

// Bind attaches gadget name to udc unless it already is. Binding to
// another UDC while bound unbinds first.
func (r *Reconciler) Bind(name, udc string) error {
	p := filepath.Join(Layout{Name: name}.dir(r.root()), "UDC")
	cur, err := readTrim(p)
	if err != nil {
		return fmt.Errorf("gadget: bind: %w", err)
	}
	if cur == udc {
		return nil
	}
	if cur != "" {
		if err := os.WriteFile(p, []byte("\n"), 0o644); err != nil {
			return fmt.Errorf("gadget: bind: unbind from %s: %w", cur, err)
		}
	}
	if err := os.WriteFile(p, []byte(udc), 0o644); err != nil {
		return fmt.Errorf("gadget: bind to UDC %s: %w", udc, err)
	}
	return nil
}

// Bound returns the UDC gadget name is bound to ("" when unbound).
func (r *Reconciler) Bound(name string) (string, error) {
	s, err := readTrim(filepath.Join(Layout{Name: name}.dir(r.root()), "UDC"))
	if err != nil {
		return "", fmt.Errorf("gadget: %w", err)
	}
	return s, nil
}

// DevicePath returns the /dev/hidgN node of function fn of gadget name,
// from the function's dev attribute ("major:minor"; f_hid names nodes
// hidg<minor>). devDir "" means /dev.
func (r *Reconciler) DevicePath(name, fn, devDir string) (string, error) {
	if devDir == "" {
		devDir = "/dev"
	}
	s, err := readTrim(filepath.Join(Layout{Name: name}.dir(r.root()), "functions", "hid."+fn, "dev"))
	if err != nil {
		return "", fmt.Errorf("gadget: device of %s: %w", fn, err)
	}
	_, minor, ok := strings.Cut(s, ":")
	if _, err := strconv.Atoi(minor); !ok || err != nil {
		return "", fmt.Errorf("gadget: device of %s: dev attribute %q is not major:minor", fn, s)
	}
	return filepath.Join(devDir, "hidg"+minor), nil
}
