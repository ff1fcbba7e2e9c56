package profiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/api"
)

// TestShippedProfiles: the embedded profiles parse, cover the simulated
// phone's apps and both platforms, and every link of theirs builds with
// example values of its parameters.
func TestShippedProfiles(t *testing.T) {
	ps, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	set := Merge(ps, nil)
	for _, id := range []string{"com.apple.Preferences", "com.apple.mobilesafari", "com.apple.mobilenotes", "com.apple.Maps",
		"com.apple.MobileSMS", "com.apple.mobilemail", "com.apple.mobileslideshow", "com.apple.camera", "com.apple.mobilecal",
		"com.apple.mobiletimer", "com.apple.AppStore", "com.apple.Passbook", "com.apple.mobilephone", "com.google.ios.youtube",
		"net.whatsapp.WhatsApp", "com.spotify.client", "com.android.settings", "com.android.chrome", "com.google.android.apps.maps",
		"com.whatsapp", "com.spotify.music", "com.google.android.youtube"} {
		p, ok := set.Get(id)
		if !ok {
			t.Errorf("no shipped profile %s", id)
			continue
		}
		if p.Source != api.SourceShipped || p.URLSchemes == nil || p.Links == nil || p.Quirks == nil {
			t.Errorf("%s: source %q, nil lists %v %v %v", id, p.Source, p.URLSchemes == nil, p.Links == nil, p.Quirks == nil)
		}
	}
	if len(set.List(api.PlatformIOS)) == 0 || len(set.List(api.PlatformAndroid)) == 0 {
		t.Error("a platform without profiles")
	}
	example := map[api.ParamType]string{api.ParamString: `"x"`, api.ParamInteger: `7`, api.ParamNumber: `1.5`, api.ParamBoolean: `true`}
	for _, p := range ps {
		for _, l := range p.Links {
			params := map[string]json.RawMessage{}
			for _, q := range l.Params {
				v := example[q.Type]
				switch {
				case q.Enum != nil:
					v = `"` + q.Enum[0] + `"`
				case q.Pattern != "":
					continue // an example that matches is the pattern's business; required ones below
				}
				params[q.Name] = json.RawMessage(v)
			}
			u, e := Build(p, l.Name, params)
			if e != nil && e.Code != api.CodeLinkParams {
				t.Errorf("%s %s: %v", p.BundleID, l.Name, e)
			}
			if e == nil && strings.ContainsAny(u, "{} ") {
				t.Errorf("%s %s built %q", p.BundleID, l.Name, u)
			}
		}
	}
}

func TestBuild(t *testing.T) {
	maps := api.AppProfile{BundleID: "com.apple.Maps", Name: "Maps", Platform: api.PlatformIOS, URLSchemes: []string{"maps", "sms"},
		Links: []api.DeepLink{
			{Name: "search", URL: "https://maps.apple.com/?q={query}&ll={near}&z={zoom}", Params: []api.LinkParam{
				{Name: "query", Type: api.ParamString, Required: true},
				{Name: "near", Type: api.ParamString, Pattern: `-?[0-9]+(\.[0-9]+)?,-?[0-9]+(\.[0-9]+)?`},
				{Name: "zoom", Type: api.ParamInteger}}},
			{Name: "mode", URL: "maps://?dirflg={mode}&daddr={to}#{frag}", Params: []api.LinkParam{
				{Name: "mode", Type: api.ParamString, Enum: []string{"d", "w"}},
				{Name: "to", Type: api.ParamString, Required: true},
				{Name: "frag", Type: api.ParamBoolean, Required: true}}},
			{Name: "sms", URL: "sms:{number}&body={text}", Params: []api.LinkParam{
				{Name: "number", Type: api.ParamString, Required: true, Pattern: `\+?[0-9]{3,15}`},
				{Name: "text", Type: api.ParamString, Required: true}}},
			{Name: "at", URL: "maps://?sll={lat}", Params: []api.LinkParam{{Name: "lat", Type: api.ParamNumber, Required: true}}},
		}}
	for _, tc := range []struct {
		link, params string
		want         string
		code         api.Code
		says         string
	}{
		{link: "search", params: `{"query":"coffee & cake/ä"}`, want: "https://maps.apple.com/?q=coffee%20%26%20cake%2F%C3%A4"},
		{link: "search", params: `{"query":"x","zoom":"12","near":"52.5,13.4"}`, want: "https://maps.apple.com/?q=x&ll=52.5%2C13.4&z=12"},
		{link: "search", params: `{"query":"x","zoom":12,"near":null}`, want: "https://maps.apple.com/?q=x&z=12"},
		{link: "mode", params: `{"to":"Berlin","frag":false}`, want: "maps://?daddr=Berlin#false"},
		{link: "mode", params: `{"to":"a","mode":"w","frag":"true"}`, want: "maps://?dirflg=w&daddr=a#true"},
		{link: "sms", params: `{"number":"+4930123","text":"hi there"}`, want: "sms:%2B4930123&body=hi%20there"},
		{link: "at", params: `{"lat":1e1}`, want: "maps://?sll=10"},
		{link: "nope", params: `{}`, code: api.CodeLinkNotFound, says: "its links are search, mode, sms, at"},
		{link: "search", params: `{}`, code: api.CodeLinkParams, says: `needs parameter "query"`},
		{link: "search", params: `{"query":"x","qery":"y"}`, code: api.CodeLinkParams, says: `no parameter "qery"`},
		{link: "search", params: `{"query":5}`, code: api.CodeLinkParams, says: "must be a string"},
		{link: "search", params: `{"query":""}`, code: api.CodeLinkParams, says: "must not be empty"},
		{link: "search", params: `{"query":"a\nb"}`, code: api.CodeLinkParams, says: "control characters"},
		{link: "search", params: `{"query":"x","zoom":1.5}`, code: api.CodeLinkParams, says: "must be an integer"},
		{link: "search", params: `{"query":"x","near":"north"}`, code: api.CodeLinkParams, says: "must match"},
		{link: "search", params: `{"query":"` + strings.Repeat("a", api.MaxURL) + `"}`, code: api.CodeLinkParams, says: "more than 2048"},
		{link: "mode", params: `{"to":"a","mode":"x","frag":true}`, code: api.CodeLinkParams, says: "must be one of d, w"},
		{link: "mode", params: `{"to":"a","frag":"yes"}`, code: api.CodeLinkParams, says: "true or false"},
		{link: "at", params: `{"lat":"north"}`, code: api.CodeLinkParams, says: "must be a number"},
	} {
		var params map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.params), &params); err != nil {
			t.Fatal(err)
		}
		got, e := Build(maps, tc.link, params)
		switch {
		case tc.code == "" && (e != nil || got != tc.want):
			t.Errorf("Build(%s, %s) = %q, %v; want %q", tc.link, api.Clip(tc.params), got, e, tc.want)
		case tc.code != "" && (e == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.says)):
			t.Errorf("Build(%s, %s) = %q, %v; want %s saying %q", tc.link, api.Clip(tc.params), got, e, tc.code, tc.says)
		}
	}
}

// TestParseRefuses: each bad file is refused with its line, column and
// field.
func TestParseRefuses(t *testing.T) {
	good := `{"profiles": [
  {"bundle_id": "com.example.shop", "name": "Shop", "platform": "ios",
   "url_schemes": ["shop"],
   "links": [{"name": "item", "description": "An item.", "url": "shop://item/{id}?ref={ref}",
              "params": [{"name": "id", "type": "integer", "required": true},
                         {"name": "ref", "type": "string", "pattern": "[a-z]+"}]}],
   "quirks": ["Slow."]}
]}`
	ps, err := Parse("f.json", []byte(good), api.SourceOwner)
	if err != nil || len(ps) != 1 || ps[0].Source != api.SourceOwner {
		t.Fatalf("good file: %+v, %v", ps, err)
	}
	for _, tc := range []struct {
		name, from, to string
		want           string
	}{
		{"syntax", `"quirks": ["Slow."]}`, `"quirks": ["Slow."],}`, "f.json:7:"},
		{"unknown field", `"quirks"`, `"quirkz"`, `f.json:7:14: profiles[0].quirkz: unknown field`},
		{"wrong type", `"required": true`, `"required": "yes"`, `f.json:5:72: profiles[0].links[0].params[0].required: want a JSON boolean`},
		{"bad param type", `"type": "integer"`, `"type": "int"`, `f.json:5:49: profiles[0].links[0].params[0].type: must be string, integer, number or boolean, not "int"`},
		{"bad pattern", `"[a-z]+"`, `"[a-z"`, `f.json:6:71: profiles[0].links[0].params[1].pattern: not a regular expression`},
		{"scheme not registered", `["shop"]`, `["store"]`, `f.json:4:65: profiles[0].links[0].url: the scheme "shop" is neither`},
		{"optional in path", `item/{id}?ref={ref}`, `item/{ref}?ref={id}`, `profiles[0].links[0].url: optional parameter "ref" must be a whole query value`},
		{"unused param", `?ref={ref}`, ``, `parameter "ref" is not used`},
		{"undeclared placeholder", `{id}?`, `{idd}?`, `{idd} names no parameter`},
		{"bad bundle id", `"com.example.shop"`, `"shop"`, `f.json:2:17: profiles[0].bundle_id: "shop" is not a bundle id`},
		{"platform", `"ios"`, `"windows"`, `f.json:2:65: profiles[0].platform: must be ios or android`},
		{"source", `"quirks"`, `"source": "shipped", "quirks"`, `profiles[0].source: set by the box`},
		{"no name", `"name": "Shop", `, ``, `f.json:2:3: profiles[0].name: required`},
		{"empty", good, "", `f.json:1:1: the file is empty`},
		{"no profiles", good, `{"profile": []}`, `f.json:1:13: profile: unknown field`},
		{"a list", good, ` [{"bundle_id": "a.b"}]`, `f.json:1:2: the file holds one object`},
	} {
		if !strings.Contains(good, tc.from) {
			t.Fatalf("%s: %q is not in the file", tc.name, tc.from)
		}
		bad := strings.Replace(good, tc.from, tc.to, 1)
		_, err := Parse("f.json", []byte(bad), api.SourceOwner)
		var fe *FileError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a FileError with %q", tc.name, err, tc.want)
		}
	}
	dup := strings.Replace(good, `]}`+"\n"+`]}`, `]},`+strings.TrimPrefix(good[strings.Index(good, "\n"):], "\n"), 1)
	if _, err := Parse("f.json", []byte(dup), api.SourceOwner); err == nil || !strings.Contains(err.Error(), "already the bundle id of profiles[0]") {
		t.Errorf("duplicate bundle id: %v", err)
	}
}

// TestStoreOwnerFile: the owner's file replaces and adds profiles, is read
// again when it changes, and a bad one is refused while the shipped
// profiles keep working.
func TestStoreOwnerFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes, ok := s.Current().Get("com.apple.mobilenotes")
	if !ok || notes.Source != api.SourceShipped || s.Err() != nil {
		t.Fatalf("without a file: %+v %v", notes, s.Err())
	}
	write := func(body string, mod time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	write(`{"profiles": [
  {"bundle_id": "com.apple.mobilenotes", "name": "My Notes", "platform": "ios"},
  {"bundle_id": "com.example.shop", "name": "Shop", "platform": "ios"}]}`, t0)
	set := s.Current()
	if n, _ := set.Get("com.apple.mobilenotes"); n.Name != "My Notes" || n.Source != api.SourceOwner || n.Links == nil {
		t.Errorf("owner's Notes: %+v", n)
	}
	if _, ok := set.Get("com.example.shop"); !ok || s.Err() != nil {
		t.Errorf("owner's new profile missing (%v)", s.Err())
	}
	if _, ok := set.Get("com.apple.Maps"); !ok {
		t.Error("a shipped profile the file does not name is gone")
	}
	write(`{"profiles": [{"bundle_id": "com.example.shop", "name": "Shop", "platform": "ios", "links": [{"name": "Bad"}]}]}`, t0.Add(time.Minute))
	set = s.Current()
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), FileName+":1:") || !strings.Contains(err.Error(), "profiles[0].links[0].name") {
		t.Errorf("bad file: %v", err)
	}
	if _, ok := set.Get("com.example.shop"); ok {
		t.Error("a bad file's profiles are served")
	}
	if n, _ := set.Get("com.apple.mobilenotes"); n.Source != api.SourceShipped {
		t.Errorf("with a bad file Notes is %+v, want the shipped one", n)
	}
	os.Remove(path)
	if s.Current(); s.Err() != nil {
		t.Errorf("after removing the file: %v", s.Err())
	}
}

// TestParseCaps pins issue 22 D1: a 16 KB file of nested lists made the
// parser keep one path per level (memory growing with the square of the
// depth: 670 MiB at start for 40 KB). A file nested deeper than MaxDepth
// or larger than MaxFileSize is refused at its position, cheaply.
func TestParseCaps(t *testing.T) {
	const levels = 8000
	deep := `{"profiles": ` + strings.Repeat("[", levels) + strings.Repeat("]", levels) + `}`
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Parse("f.json", []byte(deep), api.SourceOwner)
	runtime.ReadMemStats(&after)
	want := fmt.Sprintf("f.json:1:%d: the file nests lists and objects deeper than %d levels", len(`{"profiles": `)+MaxDepth, MaxDepth)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("nested %d levels: %v, want %q", levels, err, want)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("refusing a %d-byte nested file allocated %d bytes, want under 4 MiB", len(deep), got)
	}

	big := `{"profiles": [` + strings.Repeat(" ", MaxFileSize) + `]}`
	_, err = Parse("f.json", []byte(big), api.SourceOwner)
	want = fmt.Sprintf("f.json:1:%d: the file is larger than %d bytes", MaxFileSize+1, MaxFileSize)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a %d-byte file: %v, want %q", len(big), err, want)
	}
}

// TestStoreRefusesNested: the Store refuses a deeply nested or oversized
// owner's file (issue 22 D1) and keeps serving the shipped profiles.
func TestStoreRefusesNested(t *testing.T) {
	for _, tc := range []struct {
		name, body, says string
	}{
		{"nested", `{"profiles": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, "deeper than"},
		{"big", `{"profiles": [` + strings.Repeat(" ", MaxFileSize) + `]}`, "larger than"},
	} {
		path := filepath.Join(t.TempDir(), FileName)
		if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Err(); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: Err() = %v, want it to say %q", tc.name, err, tc.says)
		}
		if p, ok := s.Current().Get("com.apple.mobilenotes"); !ok || p.Source != api.SourceShipped {
			t.Errorf("%s: Notes is %+v, %v; want the shipped profile", tc.name, p, ok)
		}
	}
}
