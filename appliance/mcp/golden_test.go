package mcp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/appliance/mcp"
	"github.com/openlolo/openlolo/phone"
)

// wireDir holds the wire's golden files, which the Python SDK's tests
// read too.
const wireDir = "../../api/testdata"

// golden compares got (JSON) with the golden file name, indented, or
// rewrites the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatalf("%s: not JSON: %v: %s", name, err, got)
	}
	buf.WriteByte('\n')
	path := filepath.Join(wireDir, name)
	if *mcp.UpdateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", path, firstDiff(want, buf.Bytes()))
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y []byte
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if !bytes.Equal(x, y) {
			return "line " + strconv.Itoa(i+1) + ":\n- " + string(x) + "\n+ " + string(y)
		}
	}
	return ""
}

// TestToolsListGolden pins tools/list, byte for byte as the wire carries
// it (the indentation is the only change), for a caller with both scopes,
// on a phone with a clipboard (so every tool is listed).
func TestToolsListGolden(t *testing.T) {
	golden(t, "tools_list.json", fullToolsList(t))
}

// fullToolsList is tools/list's result as the wire carries it, for a
// caller with both scopes on a phone with a clipboard: every tool.
func fullToolsList(t *testing.T) json.RawMessage {
	t.Helper()
	ph := controltest.New(nil)
	ph.SetNative(phone.Capabilities{Clipboard: true})
	b := newBox(t, boxOpts{phone: ph})
	b.addCaller("lister", bothScopes)
	_, body := b.post(t, "lister", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
	var rpc struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &rpc); err != nil || rpc.Result == nil {
		t.Fatalf("tools/list: %s (%v)", body, err)
	}
	return rpc.Result
}
