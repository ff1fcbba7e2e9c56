package rootfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestWifiMerge: wifi.txt's network replaces a saved one of the same
// name and joins the others; without wifi.txt the saved networks stay;
// a missing saved file gives the header alone.
func TestWifiMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	saved := filepath.Join(dir, "saved.conf")
	os.WriteFile(saved, []byte("ctrl_interface=/run/wpa_supplicant\nupdate_config=1\ncountry=DE\nnetwork={\n\tssid=486f6d65\n\tpsk=\"old-password\"\n}\nnetwork={\n\tssid=\"cafe\"\n\tkey_mgmt=NONE\n}\nnetwork={\n\tssid=\"Home\"\n\tpsk=\"saved-by-the-box\"\n}\n"), 0o600)
	txt := filepath.Join(dir, "txt.conf")
	os.WriteFile(txt, []byte("ctrl_interface=/run/wpa_supplicant\ncountry=GB\nnetwork={\n  ssid=486f6d65\n  psk=\"new-password\"\n}\n"), 0o600)
	merge := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("sh", append([]string{script(t, "wifi-merge")}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("wifi-merge %q: %v: %s", args, err, out)
		}
		return string(out)
	}
	for _, tc := range []struct {
		name, got, want string
	}{
		{"wifi.txt replaces its network (hex and quoted)", merge(saved, txt, "Home"),
			"ctrl_interface=/run/wpa_supplicant\nupdate_config=1\ncountry=GB\nnetwork={\n\tssid=\"cafe\"\n\tkey_mgmt=NONE\n}\nnetwork={\n  ssid=486f6d65\n  psk=\"new-password\"\n}\n"},
		{"no wifi.txt", merge(saved, ""),
			"ctrl_interface=/run/wpa_supplicant\nupdate_config=1\ncountry=DE\nnetwork={\n\tssid=486f6d65\n\tpsk=\"old-password\"\n}\nnetwork={\n\tssid=\"cafe\"\n\tkey_mgmt=NONE\n}\nnetwork={\n\tssid=\"Home\"\n\tpsk=\"saved-by-the-box\"\n}\n"},
		{"nothing saved yet", merge(filepath.Join(dir, "absent.conf"), ""),
			"ctrl_interface=/run/wpa_supplicant\nupdate_config=1\n"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.name, tc.got, tc.want)
		}
	}
}
