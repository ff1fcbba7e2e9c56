package tmplexec_test

import (
	"bytes"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/openlolo/openlolo/appliance/tmplexec"
	"github.com/openlolo/openlolo/appliance/tmplexec/tmplescape"
)

type inner struct {
	Name  string
	Count int
	Tags  []string
}

type kind string

type data struct {
	Title   string
	N       int
	U       uint8
	F       float64
	On      bool
	Kind    kind
	Items   []inner
	Ptr     *inner
	Nil     *inner
	Map     map[string]int
	IntMap  map[int]string
	Any     any
	Empty   []string
	Func    func() string
	When    time.Time
	private int // read only by a template, to be refused
	inner
}

func (d data) Method() string { return "method" }

func sample() data {
	return data{
		Title: "a <b> & 'c' + \"d\"", N: 3, U: 7, F: 1.5, On: true, Kind: "sim",
		Items: []inner{{Name: "one", Count: 1, Tags: []string{"x", "y"}}, {Name: "two", Count: 0}, {Name: "three", Count: 3}},
		Ptr:   &inner{Name: "ptr", Count: 2},
		Map:   map[string]int{"b": 2, "a": 1, "c": 3}, IntMap: map[int]string{3: "three", 1: "one", 2: "two"},
		Any: "any", inner: inner{Name: "embedded"}, private: 1, When: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC),
	}
}

var funcs = map[string]any{
	"upper": strings.ToUpper,
	"join":  func(sep string, s ...string) string { return strings.Join(s, sep) },
	"fail":  func() (string, error) { return "", errors.New("it failed") },
	"twice": func(n int) int { return 2 * n },
	"pick":  func(on bool, a, b string) string { return map[bool]string{true: a, false: b}[on] },
}

// Every template here runs the same in tmplexec and in text/template.
func TestLikeTextTemplate(t *testing.T) {
	for _, src := range []string{
		`{{.Title}} {{.N}} {{.U}} {{.F}} {{.On}} {{.Kind}} {{.Name}} {{.Ptr.Name}} {{.Any}}`,
		`{{if .On}}on{{else}}off{{end}} {{if .Empty}}e{{else if .N}}n{{else}}none{{end}} {{if not .Nil}}nil{{end}}`,
		`{{with .Ptr}}{{.Name}}/{{.Count}}{{end}}{{with .Nil}}x{{else}}no ptr{{end}}{{with $x := .N}}{{$x}}{{end}}`,
		`{{range .Items}}[{{.Name}}{{range .Tags}}:{{.}}{{end}}]{{else}}none{{end}}{{range .Empty}}x{{else}}empty{{end}}`,
		`{{range $i, $e := .Items}}{{$i}}={{$e.Name}},{{end}} {{range $k, $v := .Map}}{{$k}}{{$v}}{{end}} {{range $k, $v := .IntMap}}{{$k}}{{$v}}{{end}}`,
		`{{range .Items}}{{if eq .Count 0}}{{continue}}{{end}}{{if eq .Name "three"}}{{break}}{{end}}{{.Name}}{{end}}`,
		`{{range 3}}{{.}}{{end}} {{range $i := .N}}{{$i}}{{end}}`,
		`{{$t := .Title}}{{$n := 0}}{{range .Items}}{{$n = .Count}}{{end}}{{$n}} {{$t}} {{$.N}}`,
		`{{eq .N 3}} {{eq .Kind "sim"}} {{ne .N 2}} {{lt .N 4}} {{le .N 3}} {{gt .N 3}} {{ge .U 7}} {{eq .U 7}} {{lt .F 2.0}} {{eq .Title .Title}}`,
		`{{and .On .N}} {{and .On .Empty}} {{or .Empty .N}} {{or .Empty ""}} {{and .Nil .Nil.Name}} {{not .On}}`,
		`{{len .Items}} {{len .Map}} {{len .Title}} {{index .Items 1}} {{index .Map "b"}} {{index .Map "zz"}} {{index .IntMap 2}} {{(index .Items 0).Name}}`,
		`{{print .N "x" .On}} {{printf "%03d|%s" .N .Kind}} {{println .N}}`,
		`{{upper .Title}} {{.Title | upper}} {{join "," "a" "b"}} {{"c" | join "-" "a" "b"}} {{twice .N}} {{twice 4}} {{pick .On "yes" "no"}}`,
		`{{define "row"}}<{{.Name}}>{{end}}{{range .Items}}{{template "row" .}}{{end}}{{template "row" .Ptr}}`,
		`{{.Map.a}} {{.Map.zz}} {{.Nil}} {{.Items}} {{.When}}`,
		`{{- "trim" -}}  {{/* a comment */}} {{ .N -}} .`,
	} {
		t.Run(src, func(t *testing.T) {
			want := runText(t, src, sample())
			got := runExec(t, src, sample())
			if got != want {
				t.Errorf("tmplexec wrote\n%s\ntext/template wrote\n%s", got, want)
			}
		})
	}
}

func runText(t *testing.T, src string, d any) string {
	t.Helper()
	tt, err := template.New("t").Funcs(funcs).Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tt.Execute(&b, d); err != nil {
		t.Fatalf("text/template: %v", err)
	}
	return b.String()
}

func runExec(t *testing.T, src string, d any) string {
	t.Helper()
	s, err := tmplexec.Parse("t", src, funcs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := s.Execute(&b, "t", d); err != nil {
		t.Fatalf("tmplexec: %v", err)
	}
	return b.String()
}

// What tmplexec refuses, each with an error naming the place.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{{.Method}}`, "can't evaluate field Method in type tmplexec_test.data (tmplexec reads fields and map keys, never methods)"},
		{`{{.Nope}}`, "can't evaluate field Nope"},
		{`{{.private}}`, "private is an unexported field"},
		{`{{.Nil.Name}}`, "nil pointer evaluating *tmplexec_test.inner.Name"},
		{`{{.Title.Len}}`, "can't evaluate field Len in type string"},
		{`{{.Name "x"}}`, "Name has arguments but is a field"},
		{`{{fail}}`, "error calling fail: it failed"},
		{`{{twice "x"}}`, "expected int; found \"x\""},
		{`{{twice .Title}}`, "wrong type for value; expected int; got string"},
		{`{{twice 1 2}}`, "wrong number of args for twice: want 1 got 2"},
		{`{{index .Items 9}}`, "index out of range: 9"},
		{`{{lt .Title 1}}`, "incompatible types for comparison"},
		{`{{range .Func}}{{end}}`, "range can't iterate over"},
		{`{{template "none"}}`, `template "none" not defined`},
		{`{{$x}}`, "undefined variable"},
	} {
		t.Run(tc.src, func(t *testing.T) {
			s, err := tmplexec.Parse("t", tc.src, funcs)
			if err == nil {
				err = s.Execute(new(bytes.Buffer), "t", sample())
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "t:1") {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
	if _, err := tmplexec.Parse("t", `{{nofunc .N}}`, funcs); err == nil || !strings.Contains(err.Error(), `function "nofunc" not defined`) {
		t.Errorf("an unknown function: %v", err)
	}
	if _, err := tmplexec.Parse("t", `x`, tmplexec.FuncMap{"bad": 3}); err == nil {
		t.Error("a FuncMap entry that is not a function was taken")
	}
	if _, err := tmplexec.Parse("t", `x`, tmplexec.FuncMap{"bad": func() {}}); err == nil {
		t.Error("a function that returns nothing was taken")
	}
	s, _ := tmplexec.Parse("t", `x`, nil)
	if err := s.Execute(new(bytes.Buffer), "other", nil); err == nil || !strings.Contains(err.Error(), `no template "other"`) {
		t.Errorf("an unknown template: %v", err)
	}
}

// html/template's escaping, written out by tmplescape and run by tmplexec,
// gives html/template's bytes in every context the box's pages use.
func TestLikeHTMLTemplate(t *testing.T) {
	src := `<title>{{.Title}}</title><p class="{{.Title}}">{{.Title}} {{.N}} {{.Any}} {{.Nil}}</p>
<a href="{{.URL}}">x</a><a href="/p?q={{.Title}}&u={{.URL}}">y</a><a href="{{.Bad}}">z</a><a href="/x/{{.Path}}">p</a>
<textarea>{{.Title}}</textarea>{{range .List}}<li title="{{.}}">{{.}}</li>{{end}}<!-- a comment -->{{.HTML}}`
	d := map[string]any{
		"Title": "a <b> & 'c' + \"d\" \x00 é ☃",
		"N":     7, "Any": []int{1, 2}, "Nil": nil,
		"URL": "https://example.com/a b?x=1&y=%zz%41#f", "Bad": "javascript:alert(1)", "Path": "a/b c%2F",
		"List": []string{"<", "'", "+"},
	}
	ht, err := htmltemplate.New("page").Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	escaped, err := tmplescape.Text(ht, "page")
	if err != nil {
		t.Fatal(err)
	}
	d["HTML"] = htmltemplate.HTML("<b>bold</b>")
	var want bytes.Buffer
	if err := ht.Execute(&want, d); err != nil {
		t.Fatal(err)
	}
	d["HTML"] = tmplexec.HTML("<b>bold</b>")
	s, err := tmplexec.Parse("page", escaped, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := s.Execute(&got, "page", d); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("tmplexec wrote\n%s\nhtml/template wrote\n%s", got.String(), want.String())
	}
}

// Markup in an attribute is refused: html/template would strip its tags,
// which tmplexec does not do.
func TestHTMLInAttributeRefused(t *testing.T) {
	ht := htmltemplate.Must(htmltemplate.New("page").Parse(`<p title="{{.}}">`))
	escaped, err := tmplescape.Text(ht, "page")
	if err != nil {
		t.Fatal(err)
	}
	s, err := tmplexec.Parse("page", escaped, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Execute(new(bytes.Buffer), "page", tmplexec.HTML("<b>x</b>"))
	if err == nil || !strings.Contains(err.Error(), "markup (tmplexec.HTML) in an attribute") {
		t.Errorf("markup in an attribute: %v", err)
	}
}

func ExampleSet_Execute() {
	s, err := tmplexec.Parse("greeting", `{{define "greeting"}}Hello, {{.Name}}{{if .Phones}} ({{len .Phones}} phones){{end}}.{{end}}`, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var b strings.Builder
	err = s.Execute(&b, "greeting", struct {
		Name   string
		Phones []string
	}{"owner", []string{"sim-1", "sim-2"}})
	fmt.Println(b.String(), err)
	// Output: Hello, owner (2 phones). <nil>
}
