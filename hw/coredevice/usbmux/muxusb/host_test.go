package muxusb_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/usbmux/muxusb"
)

func TestBUID(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "lockdown")
	buid, err := (&muxusb.Host{Records: lockdown.Store{Dir: dir}}).ReadBUID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$`).MatchString(buid) {
		t.Errorf("BUID %q is not an upper-case UUID", buid)
	}
	// Kept: a restart reads the same BUID.
	if again, err := (&muxusb.Host{Records: lockdown.Store{Dir: dir}}).ReadBUID(ctx); err != nil || again != buid {
		t.Errorf("ReadBUID after restart = %q, %v; want %q", again, err, buid)
	}
	if _, err := os.Stat(filepath.Join(dir, "SystemConfiguration.plist")); err != nil {
		t.Error(err)
	}

	for _, tc := range []struct{ name, content, want string }{
		{"not a plist", "garbage", "delete it to make a new BUID"},
		{"no SystemBUID", `<?xml version="1.0"?><plist version="1.0"><dict/></plist>`, "has no SystemBUID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "SystemConfiguration.plist"), []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := (&muxusb.Host{Records: lockdown.Store{Dir: dir}}).ReadBUID(ctx)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadBUID = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
