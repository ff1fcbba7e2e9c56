package main

import "testing"

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
