//go:build clients

package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/hw/sim"
)

// startSimsBox starts a box named name with sims simulated phones
// (sim-1 .. sim-N, as serve --sims N).
func startSimsBox(t *testing.T, name string, sims int) *testBox {
	t.Helper()
	var attached []control.Attached
	for i := 1; i <= sims; i++ {
		ph, err := sim.New(sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if i > 1 {
			t.Cleanup(func() { ph.Close() }) // the box closes the first
		}
		attached = append(attached, control.Attached{ID: fmt.Sprintf("sim-%d", i), Phone: ph})
	}
	return startBoxConfig(t, appliance.Config{Name: name, Phone: attached[0].Phone, Phones: attached})
}

// TestFleetTSClient: two boxes and `openlolo mcp --fleet`, driven over
// stdio by the official TypeScript MCP SDK client (fleet-client.mjs): the
// union of their phones listed, each phone's calls routed to it, and the
// second box stopped mid-run while the client keeps calling the first.
func TestFleetTSClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed (scripts/deps.sh installs it)")
	}
	if _, err := os.Stat(filepath.Join(clientsDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the npm clients are not installed: run make test-clients (npm ci in integration/clients): %v", err)
	}
	stays, goes := startSimsBox(t, "openlolo-fa01", 2), startSimsBox(t, "openlolo-fb02", 2)
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, stays, store, "fleet agent")
	cliPair(t, goes, store, "fleet agent")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "fleet-client.mjs", openloloBin(t), "openlolo-fa01", "openlolo-fb02")
	cmd.Dir = clientsDir
	cmd.Env = append(os.Environ(), "OPENLOLO_STORE="+store)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	passed := map[string]bool{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		t.Log(line)
		switch {
		case line == "STOP openlolo-fb02":
			goes.stop()
			io.WriteString(in, "STOPPED\n")
		case strings.HasPrefix(line, "STEP "):
			if name, _, ok := strings.Cut(strings.TrimPrefix(line, "STEP "), " PASS"); ok {
				passed[name] = true
			} else {
				t.Errorf("%s", line)
			}
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("fleet-client.mjs: %v", err)
	}
	for _, want := range []string{"connect", "tools", "phones", "phone-required",
		"route openlolo-fa01/sim-1", "route openlolo-fa01/sim-2", "route openlolo-fb02/sim-1", "route openlolo-fb02/sim-2",
		"stopped-box", "listing-after-stop", "other-box-unhurt"} {
		if !passed[want] {
			t.Errorf("step %q did not pass", want)
		}
	}
}
