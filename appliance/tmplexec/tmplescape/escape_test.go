package tmplescape_test

import (
	"html/template"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/tmplexec/tmplescape"
)

func TestText(t *testing.T) {
	ht := template.Must(template.New("page").Parse(`{{define "row"}}<li>{{.}}</li>{{end}}<a href="/x?q={{.Q}}">{{.T}}</a><ul>{{range .L}}{{template "row" .}}{{end}}</ul>{{define "unused"}}{{.}}{{end}}`))
	got, err := tmplescape.Text(ht, "page")
	if err != nil {
		t.Fatal(err)
	}
	want := `{{define "page"}}<a href="/x?q={{.Q | _html_template_urlescaper | _html_template_attrescaper}}">{{.T | _html_template_htmlescaper}}</a><ul>{{range .L}}{{template "row" .}}{{end}}</ul>{{end}}
{{define "row"}}<li>{{. | _html_template_htmlescaper}}</li>{{end}}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestTextRefuses(t *testing.T) {
	for _, tc := range []struct{ src, entry, want string }{
		// A template called in a second context gets a derived copy that
		// html/template keeps to itself.
		{`{{define "x"}}{{.}}{{end}}<p>{{template "x" .}}</p><p title="{{template "x" .}}">`, "page", "keeps its tree to itself"},
		{`<script>var x = {{.}}</script><a href="{{.}}`, "page", "escape page"},
		{`<p>`, "other", `no template "other"`},
	} {
		ht := template.Must(template.New("page").Parse(tc.src))
		if _, err := tmplescape.Text(ht, tc.entry); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.src, err, tc.want)
		}
	}
}
