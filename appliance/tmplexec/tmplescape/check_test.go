package tmplescape_test

import (
	"reflect"
	"strings"
	"testing"
	"text/template/parse"
	"time"

	"github.com/openlolo/openlolo/appliance/tmplexec/tmplescape"
)

type row struct {
	Name  string
	When  time.Time
	Inner *struct{ Deep string }
}

type view struct {
	Title string
	Rows  []row
	ByKey map[string]row
	Any   any
	N     int
}

func (view) Method() string { return "" }

func TestCheck(t *testing.T) {
	funcs := map[string]any{"first": func(rs []row) row { return rs[0] }}
	for _, tc := range []struct {
		src  string
		want []string // one substring per error, in order; none: clean
	}{
		{`{{.Title}}{{range .Rows}}{{.Name}}{{.Inner.Deep}}{{end}}{{with .ByKey.x}}{{.Name}}{{end}}{{.Any.Whatever}}{{range $i, $r := .Rows}}{{$i}}{{$r.Name}}{{end}}{{(first .Rows).Name}}{{template "row" index .Rows 0}}{{define "row"}}{{.Name}}{{end}}`, nil},
		{`{{.Method}}`, []string{"tmplescape_test.view.Method: a method, not a field"}},
		{`{{if .N}}{{range .Rows}}{{.When.Unix}}{{end}}{{end}}`, []string{"time.Time.Unix: a method"}},
		{`{{range .Rows}}{{.Titel}}{{end}}`, []string{"tmplescape_test.row.Titel: no field"}},
		{`{{$x := .Rows}}{{range $x}}{{.Nope}}{{end}}`, []string{"row.Nope: no field"}},
		{`{{template "row" .ByKey.k}}{{define "row"}}{{.Name}}{{.Bad}}{{end}}`, []string{"row.Bad: no field"}},
		{`{{.Title.Len}}`, []string{"string.Len: string has no fields"}},
	} {
		trees, err := parse.Parse("t", tc.src, "", "", map[string]any{"first": true, "index": true})
		if err != nil {
			t.Fatal(err)
		}
		got := tmplescape.Check(trees, funcs, "t", reflect.TypeFor[*view]())
		if len(got) != len(tc.want) {
			t.Errorf("%s: %q, want %d errors", tc.src, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: %q, want one with %q", tc.src, got[i], w)
			}
		}
	}
}
