package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/openlolo/openlolo/api"
)

// FileName is the owner's profile file in the state directory.
const FileName = "app-profiles.json"

// Limits of a profile file.
const (
	MaxName        = 80  // bytes of an app's name
	MaxSchemes     = 16  // URL schemes per app
	MaxLinks       = 32  // deep links per app
	MaxDescription = 400 // bytes of a link's or parameter's description
	MaxQuirks      = 20  // quirks per app
	MaxQuirk       = 400 // bytes of a quirk
	MaxProfiles    = 500 // profiles per file
	// MaxFileSize is the largest file read, in bytes: 500 profiles at
	// their limits fit, with room to spare.
	MaxFileSize = 1 << 20
	// MaxDepth is how deep a file may nest lists and objects. The format
	// needs 8 (the file's object, profiles, a profile, links, a link,
	// params, a parameter, enum); a file deeper is refused there, before
	// any path is kept.
	MaxDepth = 16
)

// fileDoc is a profile file.
type fileDoc struct {
	Profiles []api.AppProfile `json:"profiles"`
}

// FileError is a profile file's problem, placed at a line and column (1
// based) and named by the field's path (profiles[2].links[0].url).
type FileError struct {
	File      string
	Line, Col int
	Field     string // "" for a syntax error
	Problem   string
}

// Error is "file:line:col: field: problem".
func (e *FileError) Error() string {
	s := fmt.Sprintf("%s:%d:%d: ", e.File, e.Line, e.Col)
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Problem
}

var (
	bundleRE = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$`)
	schemeRE = regexp.MustCompile(`^[a-z][a-z0-9+.-]*$`)
	identRE  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// Parse reads a profile file (name is what errors call it) and checks
// every profile: the profiles in file order, each with source, or the
// first problem as a *FileError.
func Parse(name string, data []byte, source api.ProfileSource) ([]api.AppProfile, error) {
	at := func(off int64, field, problem string) error {
		line, col := lineCol(data, off)
		return &FileError{File: name, Line: line, Col: col, Field: field, Problem: problem}
	}
	if len(data) > MaxFileSize {
		return nil, at(MaxFileSize, "", fmt.Sprintf("the file is larger than %d bytes; split it or drop profiles", MaxFileSize))
	}
	pos, err := positions(data)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, at(se.Offset, "", "not valid JSON: "+se.Error())
		}
		var de *depthError
		if errors.As(err, &de) {
			return nil, at(de.off, "", fmt.Sprintf("the file nests lists and objects deeper than %d levels; the format needs 8", MaxDepth))
		}
		return nil, at(int64(len(data)), "", "not valid JSON: "+err.Error())
	}
	if len(pos) == 0 {
		return nil, at(0, "", "the file is empty; it holds {\"profiles\": [...]}")
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] != '{' {
		return nil, at(int64(bytes.IndexByte(data, t[0])), "", "the file holds one object, {\"profiles\": [...]}")
	}
	allowed := allowedPaths()
	for _, p := range pos {
		if !allowed[generic(p.path)] {
			return nil, at(p.off, p.path, "unknown field; a profile has bundle_id, name, platform, url_schemes, links (name, description, url, params: name, type, required, description, pattern, enum) and quirks")
		}
	}
	var doc fileDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			path, off := pos.typeError(te)
			return nil, at(off, path, fmt.Sprintf("want a JSON %s, not %s", jsonKind(te.Type), te.Value))
		}
		return nil, at(0, "", err.Error())
	}
	if _, ok := pos.find("profiles"); !ok {
		return nil, at(0, "profiles", "missing: the file holds {\"profiles\": [...]}")
	}
	if len(doc.Profiles) > MaxProfiles {
		return nil, at(pos.at("profiles"), "profiles", fmt.Sprintf("more than %d profiles", MaxProfiles))
	}
	seen := map[string]string{}
	for i := range doc.Profiles {
		p := &doc.Profiles[i]
		base := fmt.Sprintf("profiles[%d]", i)
		if field, problem := check(p); problem != "" {
			path := base
			if field != "" {
				path += "." + field
			}
			return nil, at(pos.near(path), path, problem)
		}
		if prev, dup := seen[p.BundleID]; dup {
			return nil, at(pos.near(base+".bundle_id"), base+".bundle_id", fmt.Sprintf("%q is already the bundle id of %s", p.BundleID, prev))
		}
		seen[p.BundleID] = base
		p.Source = source
		normalize(p)
	}
	return doc.Profiles, nil
}

// normalize gives a profile's lists their empty values, so an answer says
// [] rather than null.
func normalize(p *api.AppProfile) {
	if p.URLSchemes == nil {
		p.URLSchemes = []string{}
	}
	if p.Links == nil {
		p.Links = []api.DeepLink{}
	}
	if p.Quirks == nil {
		p.Quirks = []string{}
	}
	for i := range p.Links {
		if p.Links[i].Params == nil {
			p.Links[i].Params = []api.LinkParam{}
		}
	}
}

// check reports a profile's first problem: the field (relative to the
// profile) and a sentence; "" when it is fine.
func check(p *api.AppProfile) (field, problem string) {
	switch {
	case p.Source != "":
		return "source", "set by the box (shipped or owner), not in a file"
	case p.BundleID == "":
		return "bundle_id", "required"
	case len(p.BundleID) > api.MaxAppRef || !bundleRE.MatchString(p.BundleID):
		return "bundle_id", fmt.Sprintf("%q is not a bundle id: letters, digits, _ and -, in parts joined by dots (com.example.app), up to %d bytes", api.Clip(p.BundleID), api.MaxAppRef)
	case p.Name == "" || len(p.Name) > MaxName:
		return "name", fmt.Sprintf("required, up to %d bytes", MaxName)
	case p.Platform != api.PlatformIOS && p.Platform != api.PlatformAndroid:
		return "platform", fmt.Sprintf("must be ios or android, not %q", p.Platform)
	case len(p.URLSchemes) > MaxSchemes:
		return "url_schemes", fmt.Sprintf("more than %d schemes", MaxSchemes)
	case len(p.Links) > MaxLinks:
		return "links", fmt.Sprintf("more than %d links", MaxLinks)
	case len(p.Quirks) > MaxQuirks:
		return "quirks", fmt.Sprintf("more than %d quirks", MaxQuirks)
	}
	for i, s := range p.URLSchemes {
		if !schemeRE.MatchString(s) || s == "http" || s == "https" {
			return fmt.Sprintf("url_schemes[%d]", i), fmt.Sprintf("%q is not an app's URL scheme: lower-case letters, digits, + . -, starting with a letter; http and https belong to the browser", api.Clip(s))
		}
	}
	for i, q := range p.Quirks {
		if strings.TrimSpace(q) == "" || len(q) > MaxQuirk {
			return fmt.Sprintf("quirks[%d]", i), fmt.Sprintf("a sentence of 1 to %d bytes", MaxQuirk)
		}
	}
	names := map[string]bool{}
	for i := range p.Links {
		l := &p.Links[i]
		lf := fmt.Sprintf("links[%d]", i)
		if !identRE.MatchString(l.Name) || len(l.Name) > api.MaxLinkName {
			return lf + ".name", fmt.Sprintf("%q is not a link name: lower-case letters, digits and _, starting with a letter, up to %d bytes", api.Clip(l.Name), api.MaxLinkName)
		}
		if names[l.Name] {
			return lf + ".name", fmt.Sprintf("the profile has two links named %q", l.Name)
		}
		names[l.Name] = true
		if len(l.Description) > MaxDescription {
			return lf + ".description", fmt.Sprintf("longer than %d bytes", MaxDescription)
		}
		if f, problem := checkParams(l.Params); problem != "" {
			return lf + "." + f, problem
		}
		if problem := checkTemplate(p, l); problem != "" {
			return lf + ".url", problem
		}
	}
	return "", ""
}

func checkParams(params []api.LinkParam) (field, problem string) {
	if len(params) > api.MaxLinkParams {
		return "params", fmt.Sprintf("more than %d parameters", api.MaxLinkParams)
	}
	seen := map[string]bool{}
	for i, q := range params {
		f := fmt.Sprintf("params[%d]", i)
		switch {
		case !identRE.MatchString(q.Name) || len(q.Name) > api.MaxLinkName:
			return f + ".name", fmt.Sprintf("%q is not a parameter name: lower-case letters, digits and _, starting with a letter", api.Clip(q.Name))
		case seen[q.Name]:
			return f + ".name", fmt.Sprintf("two parameters named %q", q.Name)
		case !q.Type.Valid():
			return f + ".type", fmt.Sprintf("must be string, integer, number or boolean, not %q", q.Type)
		case len(q.Description) > MaxDescription:
			return f + ".description", fmt.Sprintf("longer than %d bytes", MaxDescription)
		case q.Pattern != "" && q.Type != api.ParamString:
			return f + ".pattern", "only a string parameter has a pattern"
		case q.Enum != nil && q.Type != api.ParamString:
			return f + ".enum", "only a string parameter has an enum"
		case q.Enum != nil && q.Pattern != "":
			return f + ".enum", "a parameter has a pattern or an enum, not both"
		case q.Enum != nil && len(q.Enum) == 0:
			return f + ".enum", "an enum lists at least one value"
		}
		seen[q.Name] = true
		if q.Pattern != "" {
			if _, err := regexp.Compile(anchored(q.Pattern)); err != nil {
				return f + ".pattern", "not a regular expression (RE2): " + err.Error()
			}
		}
	}
	return "", ""
}

// anchored makes a pattern match whole values.
func anchored(p string) string { return `^(?:` + p + `)$` }

// jsonKind names a Go type as the JSON a file should hold.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean (true or false)"
	case reflect.Slice:
		return "list"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return t.Kind().String()
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// pathPos is where one value of a JSON document starts.
type pathPos struct {
	path string // profiles[0].links[1].url
	off  int64
}

type posList []pathPos

func (l posList) find(path string) (int64, bool) {
	for _, p := range l {
		if p.path == path {
			return p.off, true
		}
	}
	return 0, false
}

func (l posList) at(path string) int64 { off, _ := l.find(path); return off }

// typeError places a decoding error: the last value before the error's
// offset whose path, without its indices, is the error's field.
func (l posList) typeError(te *json.UnmarshalTypeError) (string, int64) {
	path, off := te.Field, te.Offset
	for _, p := range l {
		if p.off < te.Offset && indexRE.ReplaceAllString(p.path, "") == te.Field {
			path, off = p.path, p.off
		}
	}
	return path, off
}

// near is the position of path, or of its closest ancestor present in the
// file (a missing field is placed at its object).
func (l posList) near(path string) int64 {
	for {
		if off, ok := l.find(path); ok {
			return off
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			return 0
		}
		path = path[:i]
	}
}

// depthError is a list or object opened deeper than MaxDepth, at off.
type depthError struct{ off int64 }

func (e *depthError) Error() string {
	return fmt.Sprintf("nested deeper than %d levels at byte %d", MaxDepth, e.off)
}

// positions walks a JSON document and records where each member's and
// item's value starts, in document order (the root itself is left out).
// A list or object deeper than MaxDepth stops it with a *depthError, so
// the paths it keeps stay short.
func positions(data []byte) (posList, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out posList
	var walk func(path string, depth int) error
	walk = func(path string, depth int) error {
		start := skip(data, dec.InputOffset())
		if path != "" {
			out = append(out, pathPos{path: path, off: start})
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		if depth > MaxDepth {
			return &depthError{off: start}
		}
		switch d {
		case '{':
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := kt.(string)
				child := key
				if path != "" {
					child = path + "." + key
				}
				if err := walk(child, depth+1); err != nil {
					return err
				}
			}
		case '[':
			for i := 0; dec.More(); i++ {
				if err := walk(path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
					return err
				}
			}
		}
		_, err = dec.Token() // the closing delimiter
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if err := walk("", 1); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return out, nil
}

// skip moves off past whitespace and the separators between values.
func skip(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
		default:
			return off
		}
	}
	return off
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// generic is a path with its list indices dropped.
func generic(path string) string { return indexRE.ReplaceAllString(path, "[]") }

// allowedPaths lists the generic paths a profile file may hold, from
// fileDoc's JSON members (source is refused by check, with its reason).
func allowedPaths() map[string]bool {
	out := map[string]bool{}
	var add func(prefix string, t reflect.Type)
	add = func(prefix string, t reflect.Type) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Slice:
			out[prefix+"[]"] = true
			add(prefix+"[]", t.Elem())
		case reflect.Struct:
			for _, f := range reflect.VisibleFields(t) {
				if f.Anonymous || !f.IsExported() {
					continue
				}
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				p := name
				if prefix != "" {
					p = prefix + "." + name
				}
				out[p] = true
				add(p, f.Type)
			}
		}
	}
	add("", reflect.TypeFor[fileDoc]())
	return out
}
