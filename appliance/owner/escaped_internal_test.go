package owner

import (
	"bytes"
	"flag"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openlolo/openlolo/appliance/tmplexec"
	"github.com/openlolo/openlolo/appliance/tmplexec/tmplescape"
	"github.com/openlolo/openlolo/appliance/update"
)

var updateEscaped = flag.Bool("update", false, "TestEscapedPages: rewrite templates/escaped from templates/*.html")

// htmlPages parses templates/*.html into html/template sets, one per page,
// with the pages' functions (markup as html/template's HTML): what the
// box rendered before it executed the escaped trees itself.
func (p *Pages) htmlPages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{}
	for name, f := range p.funcs() {
		funcs[name] = asHTMLTemplateFunc(f)
	}
	sets := map[string]*template.Template{}
	for _, name := range pageNames {
		files := []string{"templates/layout.html", "templates/" + name + ".html"}
		for _, part := range pageParts[name] {
			files = append(files, "templates/"+part+".html")
		}
		t, err := template.New(name).Funcs(funcs).ParseFS(os.DirFS("."), files...)
		if err != nil {
			return nil, fmt.Errorf("parse page %s: %w", name, err)
		}
		sets[name] = t
	}
	return sets, nil
}

// asHTMLTemplateFunc gives f's tmplexec.HTML results as template.HTML, the
// type html/template leaves unescaped.
func asHTMLTemplateFunc(f any) any {
	v := reflect.ValueOf(f)
	t := v.Type()
	if t.NumOut() == 0 || t.Out(0) != reflect.TypeFor[tmplexec.HTML]() {
		return f
	}
	out := make([]reflect.Type, t.NumOut())
	for i := range out {
		out[i] = t.Out(i)
	}
	out[0] = reflect.TypeFor[template.HTML]()
	in := make([]reflect.Type, t.NumIn())
	for i := range in {
		in[i] = t.In(i)
	}
	ft := reflect.FuncOf(in, out, t.IsVariadic())
	return reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		res := v.Call(args)
		res[0] = res[0].Convert(out[0])
		return res
	}).Interface()
}

// TestEscapedPages holds templates/escaped to what html/template makes of
// templates/*.html; -update rewrites them.
func TestEscapedPages(t *testing.T) {
	p := &Pages{}
	sets, err := p.htmlPages()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range pageNames {
		text, err := tmplescape.Text(sets[name], entries(name)...)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("templates", "escaped", name+".tmpl")
		if *updateEscaped {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != text {
			t.Errorf("%s is not what html/template makes of templates/*.html now; run go test ./appliance/owner -run TestEscapedPages -update", path)
		}
	}
}

// verifyRendering has p check every page it renders against html/template's
// rendering of the same data, failing t on any difference: the owner
// tests' pages, rendered both ways.
func verifyRendering(t testing.TB, p *Pages) {
	sets, err := p.htmlPages()
	if err != nil {
		t.Fatal(err)
	}
	p.verify = func(page, entry string, data any, got []byte, err error) {
		var want bytes.Buffer
		werr := sets[page].ExecuteTemplate(&want, entry, data)
		switch {
		case (err == nil) != (werr == nil):
			t.Errorf("page %s (%s): tmplexec's error %v, html/template's %v", page, entry, err, werr)
		case err == nil && !bytes.Equal(got, want.Bytes()):
			t.Errorf("page %s (%s): tmplexec wrote\n%s\nhtml/template wrote\n%s", page, entry, firstDiff(got, want.Bytes()), firstDiff(want.Bytes(), got))
		}
	}
}

// firstDiff is a's text around its first byte that differs from b.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo, hi := max(0, i-80), min(len(a), i+80)
	return fmt.Sprintf("…%s…", a[lo:hi])
}

// The update section's progress line (a bundle being written) is drawn by
// no page test: the updater cannot be held mid-write there. It called the
// Progress's Percent method, which tmplexec does not call.
func TestRenderUpdateProgress(t *testing.T) {
	p := &Pages{}
	if err := p.parseTemplates(); err != nil {
		t.Fatal(err)
	}
	verifyRendering(t, p)
	for _, pr := range []update.Progress{
		{State: "writing", Version: "v1.2.3", Done: 50, Total: 200},
		{State: "failed", Err: &update.Error{Code: "BAD_SIGNATURE", Message: "the bundle is not signed with this image's key"}},
		{State: "rebooting", Version: "v1.2.3"},
	} {
		var buf bytes.Buffer
		data := &settingsPage{basePage: basePage{Title: "Settings"}, Update: &updateView{Available: true, Progress: pr},
			Account: &accountView{}, WiFi: &wifiView{}, Identity: &identityView{}, Prefs: &prefsView{}}
		if err := p.execute(&buf, "settings", "layout", data); err != nil {
			t.Fatalf("%s: %v", pr.State, err)
		}
		if pr.State == "writing" && !bytes.Contains(buf.Bytes(), []byte("writing 25% of 200 bytes")) {
			t.Errorf("writing: no \"writing 25%% of 200 bytes\" in %s", firstDiff(buf.Bytes(), nil))
		}
	}
}
