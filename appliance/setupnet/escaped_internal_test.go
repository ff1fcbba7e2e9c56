package setupnet

import (
	"bytes"
	"flag"
	"html/template"
	"os"
	"reflect"
	"testing"

	"github.com/openlolo/openlolo/appliance/tmplexec"
	"github.com/openlolo/openlolo/appliance/tmplexec/tmplescape"
)

// updating reports -update, which card_test.go declares for its goldens.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// htmlPage is page.html as html/template parses it: what the page
// rendered before it executed the escaped tree itself.
func htmlPage() (*template.Template, error) {
	src, err := os.ReadFile("page.html")
	if err != nil {
		return nil, err
	}
	return template.New("setup").Parse(string(src))
}

// TestEscapedPage holds page.tmpl to what html/template makes of
// page.html; -update rewrites it.
func TestEscapedPage(t *testing.T) {
	ht, err := htmlPage()
	if err != nil {
		t.Fatal(err)
	}
	text, err := tmplescape.Text(ht, "setup")
	if err != nil {
		t.Fatal(err)
	}
	if updating() {
		if err := os.WriteFile("page.tmpl", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if text != pageText {
		t.Error("page.tmpl is not what html/template makes of page.html now; run go test ./appliance/setupnet -run TestEscapedPage -update")
	}
}

// verifyRendering has p check every page it renders against
// html/template's rendering of the same data.
func verifyRendering(t testing.TB, p *Page) {
	ht, err := htmlPage()
	if err != nil {
		t.Fatal(err)
	}
	p.verify = func(d pageData, got []byte, err error) {
		var want bytes.Buffer
		werr := ht.Execute(&want, d)
		if (err == nil) != (werr == nil) || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("setup page: tmplexec wrote (error %v)\n%s\nhtml/template wrote (error %v)\n%s", err, got, werr, want.Bytes())
		}
	}
}

// TestPageReadOnlyFields: every path of the setup page reads fields of
// pageData only (tmplescape.Check), so tmplexec draws every branch.
func TestPageReadOnlyFields(t *testing.T) {
	s, err := tmplexec.Parse("setup", pageText, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tmplescape.Check(s.Trees(), nil, "setup", reflect.TypeFor[pageData]()) {
		t.Error(e)
	}
}
