package sdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/sdk"
)

// A stdio client of MCP 2026-07-28 sends its protocol in every request's
// _meta; the bridge keeps it from the box (which refuses it without the
// matching header) and the call is answered.
func TestBridgeClientProtocolMeta(t *testing.T) {
	box := startBoxOf("openlolo-br01", 1)
	t.Cleanup(func() { box.stop() })
	store := &sdk.TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	box.Pair(store)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := sdk.Dial(ctx, box.URL, &sdk.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- sdk.Bridge(ctx, c, inR, outW); outW.Close() }()
	defer func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("Bridge: %v", err)
		}
	}()
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_status","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}` + "\n"
	if _, err := io.WriteString(inW, req); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 8<<20)
	if !sc.Scan() {
		t.Fatalf("the bridge closed stdout: %v", sc.Err())
	}
	var ans struct {
		Result map[string]any  `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(sc.Bytes(), &ans); err != nil {
		t.Fatal(err)
	}
	if ans.Error != nil || ans.Result["isError"] == true || !strings.Contains(sc.Text(), `state`) {
		t.Fatalf("status with the client's protocol in _meta = %s", sc.Bytes())
	}
}
