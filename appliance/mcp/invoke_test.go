package mcp

import (
	"testing"

	"github.com/openlolo/openlolo/appliance/control"
)

// Every tool of the catalog runs a verb of control's table, and the two
// agree on whether the tool is mutating (its refusals then say
// dispatched: false, and its schema has the operation's members).
func TestCatalogMatchesControl(t *testing.T) {
	for _, tl := range catalog() {
		if tl.args == nil {
			t.Errorf("%s: control has no verb for it", tl.name)
			continue
		}
		if got := control.Mutating(tl.name); got != tl.mutating {
			t.Errorf("%s: control says mutating = %v, the catalog %v", tl.name, got, tl.mutating)
		}
	}
}
