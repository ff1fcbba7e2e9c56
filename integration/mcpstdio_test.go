package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A local agent runs `openlolo mcp BOX` as a stdio MCP server; the bridge
// forwards to the pinned box. Here the official go-sdk client plays the
// agent: initialize, tools/list, and a screenshot that comes back as an
// image block.
func TestMCPStdioBridge(t *testing.T) {
	tb := startBox(t, "", false)
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, tb, store, "stdio agent")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(openloloBin(t), "mcp", tb.URL)
	cmd.Env = append(os.Environ(), "OPENLOLO_STORE="+store)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to openlolo mcp: %v", err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo; got == nil || got.Name == "" {
		t.Fatalf("initialize answered no serverInfo: %+v", cs.InitializeResult())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	names := map[string]bool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = true
		if tool.InputSchema == nil {
			t.Errorf("tool %s has no input schema through the bridge", tool.Name)
		}
	}
	for _, want := range []string{"openlolo_status", "openlolo_screenshot", "openlolo_tap", "openlolo_type_text"} {
		if !names[want] {
			t.Errorf("tools/list through the bridge lacks %s", want)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "openlolo_screenshot", Arguments: map[string]any{"max_size": 640}})
	if err != nil {
		t.Fatalf("tools/call screenshot: %v", err)
	}
	if res.IsError {
		t.Fatalf("screenshot failed: %+v", res.StructuredContent)
	}
	var img *mcp.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if img == nil || img.MIMEType != "image/jpeg" || len(img.Data) < 100 || img.Data[0] != 0xFF || img.Data[1] != 0xD8 {
		t.Fatalf("screenshot through the bridge has no JPEG image block: %+v", res.Content)
	}
	// A refused call passes through as a tool answer, not a protocol error.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "openlolo_tap", Arguments: map[string]any{
		"frame_id": "nope", "geometry_epoch": "0", "x": 0.5, "y": 0.5}})
	if err != nil || !res.IsError {
		t.Fatalf("tap with a made-up frame: err %v, isError %v; want a failed tool answer", err, res != nil && res.IsError)
	}
}
