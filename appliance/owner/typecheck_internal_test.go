package owner

import (
	"reflect"
	"testing"

	"github.com/openlolo/openlolo/appliance/tmplexec/tmplescape"
)

// pageData are the types each page's set is executed with, by entry.
func pageData() map[string]map[string]reflect.Type {
	layout := func(v page) map[string]reflect.Type {
		return map[string]reflect.Type{"layout": reflect.TypeOf(v)}
	}
	m := map[string]map[string]reflect.Type{
		"access":        layout(&accessPage{}),
		"access_revoke": layout(&revokeConfirmPage{}),
		"activity":      layout(&activityPage{}),
		"asks":          layout(&askPageData{}),
		"authorize":     layout(&authorizePage{}),
		"claim":         layout(&claimPage{}),
		"claim_button":  layout(&claimButtonPage{}),
		"connect":       layout(&connectPage{}),
		"help":          layout(&helpPage{}),
		"login":         layout(&loginPage{}),
		"message":       layout(&messagePage{}),
		"settings":      layout(&settingsPage{}),
		"status":        layout(&statusPage{}),
	}
	m["status"]["control"] = reflect.TypeFor[controlView]()
	return m
}

// TestPagesReadOnlyFields follows every path of every page's escaped
// templates with the Go type its data has there (tmplescape.Check), and
// fails on a name that is not a field or map key of that type: a method
// (which tmplexec does not call) or a typo, even on a branch no page
// test draws.
func TestPagesReadOnlyFields(t *testing.T) {
	p := &Pages{}
	if err := p.parseTemplates(); err != nil {
		t.Fatal(err)
	}
	for page, entries := range pageData() {
		if len(entries) != len(pageEntriesOf(page)) {
			t.Errorf("page %s: typed entries %v, executed %v", page, entries, pageEntriesOf(page))
		}
		trees := p.tmpl[page].Trees()
		for entry, typ := range entries {
			for _, e := range tmplescape.Check(trees, p.funcs(), entry, typ) {
				t.Errorf("page %s: %s", page, e)
			}
		}
	}
}

// pageEntriesOf are the entries the box executes of page.
func pageEntriesOf(page string) []string { return entries(page) }
