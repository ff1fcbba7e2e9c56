package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Issue 22 item 1: pair printed "Try: openlolo call …" though openlolo
// was not on PATH.
func TestSelfName(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	exe := filepath.Join(root, "checkout", "bin", "openlolo")
	installed := filepath.Join(root, "usr", "bin")
	other := filepath.Join(root, "other")
	for _, d := range []string{filepath.Dir(exe), installed, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(installed, "openlolo")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "openlolo"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	spaced := filepath.Join(root, "my tools", "openlolo")
	os.MkdirAll(filepath.Dir(spaced), 0o755)
	os.WriteFile(spaced, []byte("#!/bin/sh\n"), 0o755)
	tests := []struct {
		name, exe, path, want string
	}{
		{"not on PATH", exe, "/nonexistent" + string(filepath.ListSeparator) + "relative", exe},
		{"on PATH (a link to it)", exe, "/nonexistent" + string(filepath.ListSeparator) + installed, "openlolo"},
		{"another openlolo first", exe, other + string(filepath.ListSeparator) + installed, exe},
		{"a relative PATH entry", exe, ".", exe},
		{"unknown executable", "", installed, "openlolo"},
		{"a path with a space", spaced, "", "'" + spaced + "'"},
	}
	for _, tt := range tests {
		c := &Context{Executable: tt.exe, Env: []string{"PATH=" + tt.path}}
		if got := selfName(c); got != tt.want {
			t.Errorf("%s: selfName = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/usr/local/bin/openlolo": "/usr/local/bin/openlolo",
		"/home/a b/openlolo":      "'/home/a b/openlolo'",
		"/tmp/it's/openlolo":      `'/tmp/it'\''s/openlolo'`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
