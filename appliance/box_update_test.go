package appliance_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/update"
)

// TestBoxTrialCommits: a box started on the slot its update record says
// is on trial runs the self-check (HTTPS over loopback with its own pin,
// the database, the phone) once it serves, and commits the slot.
func TestBoxTrialCommits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	for name, data := range map[string][]byte{
		"disk": make([]byte, 512), "rootA": make([]byte, 4096), "rootB": make([]byte, 4096),
		"boot/config.txt": []byte("arm_64bit=1\n"),
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	rec, _ := json.Marshal(update.Record{Phase: update.PhaseTrying, From: update.SlotA, To: update.SlotB, FromVersion: "v1", Version: "v2", Started: time.Now()})
	os.MkdirAll(filepath.Join(state, "update"), 0o700)
	os.WriteFile(filepath.Join(state, "update", "state.json"), rec, 0o600)
	restarts := make(chan string, 1)
	card := &update.Card{Boot: filepath.Join(dir, "boot"), Disk: filepath.Join(dir, "disk"), RootA: filepath.Join(dir, "rootA"),
		RootB: filepath.Join(dir, "rootB"), Running: update.SlotB, Restart: func(a string) error { restarts <- a; return nil }}
	pub, _, _ := ed25519.GenerateKey(nil)
	start(t, appliance.Config{StateDir: state, Update: &appliance.UpdateConfig{Slots: card, Key: pub,
		Release: update.Release{Version: "v2", Board: "rpi", Built: 2000}}})

	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for {
		cfg, _ := os.ReadFile(filepath.Join(dir, "boot", "config.txt"))
		if update.CommittedSlot(cfg) == update.SlotB {
			break
		}
		select {
		case <-restarts:
			t.Fatal("the self-check failed and the box restarted")
		case <-deadline:
			t.Fatalf("slot B not committed after 30 s; config.txt:\n%s", cfg)
		case <-tick.C:
		}
	}
	var got update.Record
	for wait := true; wait; {
		b, _ := os.ReadFile(filepath.Join(state, "update", "state.json"))
		if json.Unmarshal(b, &got) == nil && got.Phase == update.PhaseCommitted {
			break
		}
		select {
		case <-deadline:
			wait = false
		case <-tick.C:
		}
	}
	if got.Phase != update.PhaseCommitted || !bytes.Contains(mustRead(t, filepath.Join(dir, "boot", "config.txt")), []byte("os_prefix=b/")) {
		t.Errorf("record %+v after the commit", got)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
