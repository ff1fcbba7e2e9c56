package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfilesCheck: openlolo profiles check says what a good file does
// and names a bad file's line and field, exiting 1.
func TestProfilesCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "app-profiles.json")
	good := `{"profiles": [
  {"bundle_id": "com.apple.mobilenotes", "name": "Notes", "platform": "ios"},
  {"bundle_id": "com.example.shop", "name": "Shop", "platform": "ios"}]}`
	if err := os.WriteFile(path, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "", "profiles", "check", "--state", dir)
	if code != 0 || !strings.Contains(out, "2 profiles, all valid; 1 replace shipped ones [com.apple.mobilenotes], 1 are new [com.example.shop]") {
		t.Errorf("good file: %d %q %q", code, out, errOut)
	}
	bad := strings.Replace(good, `"ios"}]}`, `"iOS"}]}`, 1)
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(t, "", "profiles", "check", path)
	if code != 1 || !strings.Contains(errOut, "app-profiles.json:3:") || !strings.Contains(errOut, `profiles[1].platform: must be ios or android, not "iOS"`) {
		t.Errorf("bad file: %d %q", code, errOut)
	}
	if code, _, _ := run(t, "", "profiles", "lint"); code != 2 {
		t.Errorf("profiles lint: exit %d, want 2", code)
	}
}
