package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The same bridge driven by the official TypeScript MCP SDK under Node, the
// client most desktop agents embed. It needs node and npm (CI installs
// them); the SDK itself comes from the npm registry into a cache folder.
func TestMCPStdioBridgeNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the go-sdk client covers the bridge (TestMCPStdioBridge)")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed")
	}
	dir := nodeClientDir(t, npm)

	tb := startBox(t, "", false)
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, tb, store, "node agent")

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.mjs"), openloloBin(t), tb.URL)
	cmd.Env = append(os.Environ(), "OPENLOLO_STORE="+store)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node MCP client: %v\n%s", err, out)
	}
	var got struct {
		Server     string   `json:"server"`
		Tools      []string `json:"tools"`
		IsError    bool     `json:"isError"`
		Status     string   `json:"status"`
		ImageMime  string   `json:"imageMime"`
		ImageBytes int      `json:"imageBytes"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node client printed %q: %v", out, err)
	}
	if got.Server == "" || !slices.Contains(got.Tools, "openlolo_screenshot") || got.IsError || got.Status != "ok" ||
		got.ImageMime != "image/jpeg" || got.ImageBytes < 100 {
		t.Fatalf("node client saw %+v", got)
	}
}

// nodeClientDir copies testdata/node-mcp to a cache folder and installs its
// pinned SDK there once (node_modules stays out of the repository).
func nodeClientDir(t *testing.T, npm string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "openlolo-test", "node-mcp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"package.json", "client.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "node-mcp", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err == nil {
		return dir
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("npm install of the MCP SDK failed in CI: %v\n%s", err, out)
		}
		t.Skipf("npm install of the MCP SDK failed (offline?): %v\n%s", err, out)
	}
	return dir
}
