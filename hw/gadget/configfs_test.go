package gadget

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/hw/hid"
)

// fakeConfigFS returns a temp gadget root and a Reconciler whose rmdir
// removes a folder with its attribute files, as configfs does.
func fakeConfigFS(t *testing.T) (string, *Reconciler) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "usb_gadget")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, &Reconciler{Root: root, rmdir: func(p string) error {
		ents, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.IsDir() {
				// Default groups (strings, configs, functions) go
				// with their parent once they are empty.
				sub, _ := os.ReadDir(filepath.Join(p, e.Name()))
				if len(sub) > 0 {
					return errors.New("rmdir " + p + ": not empty (holds " + e.Name() + "/" + sub[0].Name() + ")")
				}
			}
			os.Remove(filepath.Join(p, e.Name()))
		}
		return os.Remove(p)
	}}
}

func androidLayout() Layout {
	return Layout{Identity: Identity{Serial: "abc123"}, Functions: []hid.Function{
		hid.KeyboardFunction(), hid.ConsumerFunction(), hid.TouchFunction(),
	}}
}

func TestReconcileFresh(t *testing.T) {
	t.Parallel()
	root, r := fakeConfigFS(t)
	changed, err := r.Reconcile(androidLayout())
	if err != nil || !changed {
		t.Fatalf("Reconcile = %v, %v; want changed", changed, err)
	}
	g := filepath.Join(root, "openlolo")
	want := map[string]string{
		"idVendor": "0x1d6b", "idProduct": "0x0104", "bcdDevice": "0x0100", "bcdUSB": "0x0200",
		"strings/0x409/manufacturer": "openlolo", "strings/0x409/product": "openlolo box",
		"strings/0x409/serialnumber":        "abc123",
		"configs/c.1/MaxPower":              "100",
		"configs/c.1/bmAttributes":          "0xc0",
		"functions/hid.keyboard/protocol":   "1",
		"functions/hid.keyboard/subclass":   "1",
		"functions/hid.touch/report_length": "8",
	}
	for p, v := range want {
		b, err := os.ReadFile(filepath.Join(g, p))
		if err != nil || string(b) != v {
			t.Errorf("%s = %q (%v), want %q", p, b, err, v)
		}
	}
	desc, _ := os.ReadFile(filepath.Join(g, "functions/hid.touch/report_desc"))
	if !bytes.Equal(desc, hid.TouchFunction().Descriptor) {
		t.Error("touch report_desc differs from hid.TouchFunction")
	}
	for _, ln := range []string{"hid.keyboard", "hid.consumer", "hid.touch"} {
		target, err := os.Readlink(filepath.Join(g, "configs/c.1", ln))
		if err != nil || target != filepath.Join(g, "functions", ln) {
			t.Errorf("link %s → %q (%v)", ln, target, err)
		}
	}
	if _, err := os.Stat(filepath.Join(g, "functions/hid.touch/no_out_endpoint")); err == nil {
		t.Error("no_out_endpoint was written although the kernel does not offer it")
	}
}

func TestReconcileIdempotent(t *testing.T) {
	t.Parallel()
	root, r := fakeConfigFS(t)
	if _, err := r.Reconcile(androidLayout()); err != nil {
		t.Fatal(err)
	}
	// configfs reads numbers back with a newline; pretend it bound.
	g := filepath.Join(root, "openlolo")
	os.WriteFile(filepath.Join(g, "idVendor"), []byte("0x1d6b\n"), 0o644)
	os.WriteFile(filepath.Join(g, "UDC"), []byte("dummy_udc.0\n"), 0o644)
	r.writes = 0
	changed, err := r.Reconcile(androidLayout())
	if err != nil || changed || r.writes != 0 {
		t.Fatalf("second Reconcile = changed %v, %d writes, %v; want nothing", changed, r.writes, err)
	}
	if u, _ := r.Bound("openlolo"); u != "dummy_udc.0" {
		t.Errorf("Bound = %q after a no-op reconcile, want still dummy_udc.0", u)
	}
}

func TestReconcileChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		change  func(*Layout)
		wantFns []string
		check   func(t *testing.T, g string)
	}{
		{
			name:    "switch pointer to abs mouse",
			change:  func(l *Layout) { l.Functions[2] = hid.AbsMouseFunction() },
			wantFns: []string{"hid.absmouse", "hid.consumer", "hid.keyboard"},
		},
		{
			name:    "new serial only",
			change:  func(l *Layout) { l.Identity.Serial = "zzz" },
			wantFns: []string{"hid.consumer", "hid.keyboard", "hid.touch"},
			check: func(t *testing.T, g string) {
				if b, _ := os.ReadFile(filepath.Join(g, "strings/0x409/serialnumber")); string(b) != "zzz" {
					t.Errorf("serial = %q, want zzz", b)
				}
			},
		},
		{
			name: "descriptor changed",
			change: func(l *Layout) {
				l.Functions[0].Descriptor = append(l.Functions[0].Descriptor[:len(l.Functions[0].Descriptor):len(l.Functions[0].Descriptor)], 0xc0)
			},
			wantFns: []string{"hid.consumer", "hid.keyboard", "hid.touch"},
			check: func(t *testing.T, g string) {
				b, _ := os.ReadFile(filepath.Join(g, "functions/hid.keyboard/report_desc"))
				if b[len(b)-1] != 0xc0 || len(b) != len(hid.KeyboardFunction().Descriptor)+1 {
					t.Error("keyboard descriptor not rewritten")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, r := fakeConfigFS(t)
			if _, err := r.Reconcile(androidLayout()); err != nil {
				t.Fatal(err)
			}
			g := filepath.Join(root, "openlolo")
			os.WriteFile(filepath.Join(g, "UDC"), []byte("dummy_udc.0\n"), 0o644)
			l := androidLayout()
			tt.change(&l)
			changed, err := r.Reconcile(l)
			if err != nil || !changed {
				t.Fatalf("Reconcile = %v, %v; want changed", changed, err)
			}
			if u, _ := r.Bound("openlolo"); u != "" {
				t.Errorf("gadget still bound to %q after a change; the kernel refuses that", u)
			}
			fns, _ := filepath.Glob(filepath.Join(g, "functions", "*"))
			var names []string
			for _, f := range fns {
				names = append(names, filepath.Base(f))
			}
			if strings.Join(names, ",") != strings.Join(tt.wantFns, ",") {
				t.Errorf("functions = %v, want %v", names, tt.wantFns)
			}
			links, _ := r.links(filepath.Join(g, "configs/c.1"))
			if len(links) != len(l.Functions) {
				t.Errorf("links = %v, want %d", links, len(l.Functions))
			}
			if tt.check != nil {
				tt.check(t, g)
			}
		})
	}
}

func TestReconcileOptionalAttribute(t *testing.T) {
	t.Parallel()
	root, r := fakeConfigFS(t)
	// A kernel with no_out_endpoint creates the file with the folder.
	d := filepath.Join(root, "openlolo/functions/hid.keyboard")
	os.MkdirAll(d, 0o755)
	os.WriteFile(filepath.Join(d, "no_out_endpoint"), []byte("0\n"), 0o644)
	if _, err := r.Reconcile(androidLayout()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(d, "no_out_endpoint")); string(b) != "1" {
		t.Errorf("no_out_endpoint = %q, want 1", b)
	}
}

func TestReconcileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		l    Layout
		root string
		want string
	}{
		{"too much power", Layout{Identity: Identity{MaxPowerMA: 500}, Functions: androidLayout().Functions}, "", "MaxPower 500"},
		{"no functions", Layout{}, "", "no functions"},
		{"twice", Layout{Functions: []hid.Function{hid.KeyboardFunction(), hid.KeyboardFunction()}}, "", "twice"},
		{"no configfs", androidLayout(), "/nonexistent/usb_gadget", "is configfs mounted"},
	}
	for _, tt := range tests {
		_, r := fakeConfigFS(t)
		if tt.root != "" {
			r.Root = tt.root
		}
		_, err := r.Reconcile(tt.l)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Reconcile error = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestTeardown(t *testing.T) {
	t.Parallel()
	root, r := fakeConfigFS(t)
	if _, err := r.Reconcile(androidLayout()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "openlolo/UDC"), []byte("dummy_udc.0\n"), 0o644)
	// Our fake rmdir refuses non-empty folders, so a wrong order fails.
	if err := r.Teardown("openlolo"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "openlolo")); !os.IsNotExist(err) {
		t.Errorf("gadget folder still there: %v", err)
	}
	if err := r.Teardown("openlolo"); err != nil {
		t.Errorf("second Teardown: %v", err)
	}
}

func TestBindAndDevicePath(t *testing.T) {
	t.Parallel()
	root, r := fakeConfigFS(t)
	if _, err := r.Reconcile(androidLayout()); err != nil {
		t.Fatal(err)
	}
	g := filepath.Join(root, "openlolo")
	os.WriteFile(filepath.Join(g, "UDC"), nil, 0o644)
	if err := r.Bind("openlolo", "dummy_udc.0"); err != nil {
		t.Fatal(err)
	}
	if u, _ := r.Bound("openlolo"); u != "dummy_udc.0" {
		t.Errorf("Bound = %q", u)
	}
	os.WriteFile(filepath.Join(g, "functions/hid.touch/dev"), []byte("236:2\n"), 0o644)
	if p, err := r.DevicePath("openlolo", "touch", "/dev"); err != nil || p != "/dev/hidg2" {
		t.Errorf("DevicePath = %q, %v; want /dev/hidg2", p, err)
	}
	os.WriteFile(filepath.Join(g, "functions/hid.keyboard/dev"), []byte("garbage\n"), 0o644)
	if _, err := r.DevicePath("openlolo", "keyboard", ""); err == nil {
		t.Error("DevicePath accepted a bad dev attribute")
	}
	if _, err := r.DevicePath("openlolo", "nosuch", ""); err == nil {
		t.Error("DevicePath of a missing function succeeded")
	}
}

func TestPickUDC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := PickUDC(dir, ""); !errors.Is(err, ErrNoUDC) || !strings.Contains(err.Error(), "dtoverlay=dwc2") {
		t.Errorf("PickUDC(empty) = %v, want ErrNoUDC with a hint", err)
	}
	for _, u := range []string{"fe980000.usb", "dummy_udc.0"} {
		os.MkdirAll(filepath.Join(dir, u), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "dummy_udc.0", "state"), []byte("configured\n"), 0o644)
	tests := []struct{ want, got, err string }{
		{"", "dummy_udc.0", ""},
		{"fe980000.usb", "fe980000.usb", ""},
		{"nope", "", `"nope" is not one of dummy_udc.0, fe980000.usb`},
	}
	for _, tt := range tests {
		got, err := PickUDC(dir, tt.want)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("PickUDC(%q) error = %v, want %q", tt.want, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.got {
			t.Errorf("PickUDC(%q) = %q, %v; want %q", tt.want, got, err, tt.got)
		}
	}
	if s := UDCState(dir, "dummy_udc.0"); s != StateConfigured {
		t.Errorf("UDCState = %q", s)
	}
	if s := UDCState(dir, "gone"); s != "" {
		t.Errorf("UDCState(absent) = %q, want empty", s)
	}
}
