package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestPackageOf(t *testing.T) {
	t.Parallel()
	tests := []struct{ sym, pkg, mod string }{
		{"net/http.(*Server).Serve", "net/http", "std"},
		{"runtime.mallocgc", "runtime", "std"},
		{"tailscale.com/ipn/ipnlocal.(*LocalBackend).Start", "tailscale.com/ipn/ipnlocal", "tailscale.com"},
		{"github.com/openlolo/openlolo/appliance/control.Do[go.shape.struct { X int }]", "github.com/openlolo/openlolo/appliance/control", "github.com/openlolo/openlolo"},
		{"type:.eq.github.com/miekg/dns.Msg", "github.com/miekg/dns", "github.com/miekg/dns"},
		{"type:*net/http.Request", "type: (type data)", "type: (type data)"},
		{"go:func.*", "go: (compiler tables)", "go: (compiler tables)"},
		{"sqlite3VdbeExec", "C", "C"},
		{"struct { a int }.eq", "other (anonymous types, shapes)", "other (anonymous types, shapes)"},
		{"golang.org/x/image/font/gofont/gobold..stmp_0", "golang.org/x/image/font/gofont/gobold", "golang.org/x/image"},
	}
	for _, tt := range tests {
		if got := packageOf(tt.sym); got != tt.pkg {
			t.Errorf("packageOf(%q) = %q, want %q", tt.sym, got, tt.pkg)
		}
		if got := moduleOf(packageOf(tt.sym)); got != tt.mod {
			t.Errorf("moduleOf(packageOf(%q)) = %q, want %q", tt.sym, got, tt.mod)
		}
	}
}

// TestAppendNotes: the hand-kept notes follow the report verbatim, and a
// notes file that cannot be read fails the report instead of leaving the
// record out.
func TestAppendNotes(t *testing.T) {
	t.Parallel()
	notes := filepath.Join(t.TempDir(), "cuts.md")
	const text = "## Cuts measured\n\n| cut | bytes |\n"
	if err := os.WriteFile(notes, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	buf := bytes.NewBufferString("| 1 | 0.1 | C |\n")
	if err := appendNotes(buf, notes); err != nil {
		t.Fatalf("appendNotes: %v", err)
	}
	if got, want := buf.String(), "| 1 | 0.1 | C |\n\n"+text; got != want {
		t.Errorf("report with notes = %q, want %q", got, want)
	}

	err := appendNotes(io.Discard, filepath.Join(t.TempDir(), "none.md"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("appendNotes(missing file) = %v, want an error wrapping fs.ErrNotExist", err)
	}
}
