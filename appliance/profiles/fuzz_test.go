package profiles

import (
	"encoding/json"
	"errors"
	"net/url"
	"testing"

	"github.com/openlolo/openlolo/api"
)

// FuzzParse: any file either parses into profiles that check, or is
// refused with a FileError placed on a line of the file; never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"profiles": [{"bundle_id": "a.b", "name": "A", "platform": "ios", "url_schemes": ["x"],
  "links": [{"name": "l", "url": "x://p/{id}?q={q}", "params": [{"name": "id", "type": "integer", "required": true}, {"name": "q", "type": "string"}]}]}]}`))
	f.Add([]byte(`{"profiles": [{"bundle_id": 1}]}`))
	f.Add([]byte(`{"profiles": [`))
	f.Add([]byte(`[]`))
	f.Add([]byte("{\"profiles\":[]}\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := Parse("f.json", data, api.SourceOwner)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.Line < 1 || fe.Col < 1 {
				t.Fatalf("refusal %v is not a placed FileError", err)
			}
			return
		}
		for i := range ps {
			p := ps[i]
			p.Source = ""
			if field, problem := check(&p); problem != "" {
				t.Fatalf("a parsed profile fails its check: %s: %s", field, problem)
			}
		}
	})
}

// FuzzBuild: whatever the parameters, a link builds a URL that parses and
// has no braces left, or is refused with LINK_PARAMS.
func FuzzBuild(f *testing.F) {
	p := api.AppProfile{BundleID: "a.b", Name: "A", Platform: api.PlatformIOS, URLSchemes: []string{"x"},
		Links: []api.DeepLink{{Name: "l", URL: "x://p/{id}?q={q}&n={n}#{b}", Params: []api.LinkParam{
			{Name: "id", Type: api.ParamString, Required: true, Pattern: "[a-z0-9]+"},
			{Name: "q", Type: api.ParamString}, {Name: "n", Type: api.ParamNumber}, {Name: "b", Type: api.ParamBoolean, Required: true}}}}}
	if problem := checkTemplate(&p, &p.Links[0]); problem != "" {
		f.Fatal(problem)
	}
	f.Add(`{"id":"abc","q":"a b&c","n":1.5,"b":true}`)
	f.Add(`{"id":"abc","b":"false"}`)
	f.Add(`{"id":"ABC","b":1}`)
	f.Fuzz(func(t *testing.T, params string) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(params), &m) != nil {
			return
		}
		u, e := Build(p, "l", m)
		if e != nil {
			if e.Code != api.CodeLinkParams {
				t.Fatalf("refused with %s: %s", e.Code, e.Message)
			}
			return
		}
		if _, err := url.Parse(u); err != nil {
			t.Fatalf("built %q, which does not parse: %v", u, err)
		}
		for _, c := range u {
			if c == '{' || c == '}' || c <= ' ' || c > '~' {
				t.Fatalf("built %q with %q in it", u, c)
			}
		}
	})
}
