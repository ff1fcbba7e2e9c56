package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestAnswersValidateAgainstOutputSchemas: every golden answer (each
// tool's success and refusal, api/testdata/answers) validates against
// that tool's outputSchema on tools/list, as clients that check
// structuredContent (the TypeScript SDK with ajv, the Go SDK) do. The
// schemas are short for api.ToolsListBudget; they must stay true.
func TestAnswersValidateAgainstOutputSchemas(t *testing.T) {
	var list struct {
		Tools []struct {
			Name         string             `json:"name"`
			OutputSchema *jsonschema.Schema `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(fullToolsList(t), &list); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tl := range list.Tools {
		b, err := os.ReadFile(filepath.Join(wireDir, "answers", tl.Name+".json"))
		if err != nil {
			t.Errorf("%s: %v", tl.Name, err)
			continue
		}
		rs, err := tl.OutputSchema.Resolve(nil)
		if err != nil {
			t.Errorf("%s: the output schema does not resolve: %v", tl.Name, err)
			continue
		}
		var answers map[string]any
		if err := json.Unmarshal(b, &answers); err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
		for kind, a := range answers {
			if err := rs.Validate(a); err != nil {
				t.Errorf("%s's %s answer does not validate against its output schema: %v", tl.Name, kind, err)
			}
			checked++
		}
	}
	if checked < 2*len(list.Tools) {
		t.Errorf("validated %d answers of %d tools; every tool has two", checked, len(list.Tools))
	}
	// A wrong type is caught: the schemas say something.
	rs, err := list.Tools[0].OutputSchema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(map[string]any{"status": 1}); err == nil || !strings.Contains(err.Error(), "status") {
		t.Errorf("a numeric status validates: %v", err)
	}
}
