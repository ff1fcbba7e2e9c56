package profiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/openlolo/openlolo/api"
)

// A link's url template, in three parts: before the query (scheme, host,
// path), the query's key=value pairs, and the fragment.
type template struct {
	base  string
	query []string // pairs as written, placeholders included
	frag  string
	hasQ  bool
	hasF  bool
}

var placeholderRE = regexp.MustCompile(`\{([^{}]*)\}`)

func splitTemplate(u string) template {
	var t template
	main := u
	if i := strings.IndexByte(u, '#'); i >= 0 {
		main, t.frag, t.hasF = u[:i], u[i+1:], true
	}
	t.base = main
	if i := strings.IndexByte(main, '?'); i >= 0 {
		t.base, t.hasQ = main[:i], true
		if q := main[i+1:]; q != "" {
			t.query = strings.Split(q, "&")
		}
	}
	return t
}

// optionalPair reports whether pair is exactly key={name}: the shape an
// optional parameter must have, so the pair can be left out.
func optionalPair(pair, name string) bool {
	k, v, ok := strings.Cut(pair, "=")
	return ok && k != "" && !strings.ContainsAny(k, "{}") && v == "{"+name+"}"
}

// checkTemplate reports a link's url problem: a scheme the profile does
// not register, a placeholder without its parameter (or the reverse), a
// parameter used twice, or an optional one that is not a whole query
// value.
func checkTemplate(p *api.AppProfile, l *api.DeepLink) string {
	if l.URL == "" || len(l.URL) > api.MaxURL {
		return fmt.Sprintf("required, up to %d bytes", api.MaxURL)
	}
	scheme, _, ok := strings.Cut(l.URL, ":")
	if !ok || !schemeRE.MatchString(scheme) {
		return fmt.Sprintf("%q does not start with a URL scheme (maps:, https:)", api.Clip(l.URL))
	}
	if scheme != "http" && scheme != "https" && !slices.Contains(p.URLSchemes, scheme) {
		return fmt.Sprintf("the scheme %q is neither http(s) nor one of the profile's url_schemes %v", scheme, p.URLSchemes)
	}
	if strings.ContainsAny(placeholderRE.ReplaceAllString(l.URL, ""), "{} \t\r\n") {
		return "braces only around a parameter's name ({name}), and no spaces"
	}
	declared := map[string]api.LinkParam{}
	for _, q := range l.Params {
		declared[q.Name] = q
	}
	used := map[string]int{}
	for _, m := range placeholderRE.FindAllStringSubmatch(l.URL, -1) {
		if _, ok := declared[m[1]]; !ok {
			return fmt.Sprintf("{%s} names no parameter of the link's params", m[1])
		}
		used[m[1]]++
	}
	t := splitTemplate(l.URL)
	for _, q := range l.Params {
		switch {
		case used[q.Name] == 0:
			return fmt.Sprintf("parameter %q is not used: put {%s} in the url", q.Name, q.Name)
		case used[q.Name] > 1:
			return fmt.Sprintf("parameter %q is used %d times; use it once", q.Name, used[q.Name])
		case !q.Required && !slices.ContainsFunc(t.query, func(pair string) bool { return optionalPair(pair, q.Name) }):
			return fmt.Sprintf("optional parameter %q must be a whole query value (key={%s}) so the box can leave the pair out; or make it required", q.Name, q.Name)
		}
	}
	return ""
}

// Link returns p's deep link named name.
func Link(p api.AppProfile, name string) (api.DeepLink, bool) {
	for _, l := range p.Links {
		if l.Name == name {
			return l, true
		}
	}
	return api.DeepLink{}, false
}

// Build makes the URL of p's link named link with params: each value
// checked against its parameter's type, pattern or enum, then
// percent-encoded into the template; optional parameters left out drop
// their query pair. Refusals are LINK_NOT_FOUND (no such link) and
// LINK_PARAMS (a parameter missing, unknown or of the wrong type).
func Build(p api.AppProfile, link string, params map[string]json.RawMessage) (string, *api.Error) {
	l, ok := Link(p, link)
	if !ok {
		names := make([]string, len(p.Links))
		for i, x := range p.Links {
			names[i] = x.Name
		}
		return "", api.Errorf(api.CodeLinkNotFound, "%s's profile has no link %q; its links are %s", p.Name, api.Clip(link), orNone(names))
	}
	if len(params) > api.MaxLinkParams {
		return "", api.Errorf(api.CodeLinkParams, "more than %d params", api.MaxLinkParams)
	}
	values := map[string]string{}
	var unknown []string
	for k := range params {
		if !slices.ContainsFunc(l.Params, func(q api.LinkParam) bool { return q.Name == k }) {
			unknown = append(unknown, strconv.Quote(api.Clip(k)))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return "", api.Errorf(api.CodeLinkParams, "link %q has no parameter %s; its parameters are %s", l.Name, strings.Join(unknown, ", "), paramList(l))
	}
	for _, q := range l.Params {
		raw, given := params[q.Name]
		if given && bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			given = false
		}
		if !given {
			if q.Required {
				return "", api.Errorf(api.CodeLinkParams, "link %q needs parameter %q (%s)", l.Name, q.Name, describe(q))
			}
			continue
		}
		v, problem := value(q, raw)
		if problem != "" {
			return "", api.Errorf(api.CodeLinkParams, "parameter %q of link %q %s", q.Name, l.Name, problem)
		}
		values[q.Name] = v
	}
	u := fill(splitTemplate(l.URL), values)
	if len(u) > api.MaxURL {
		return "", api.Errorf(api.CodeLinkParams, "the link's URL would be %d bytes, more than %d; shorten the parameters", len(u), api.MaxURL)
	}
	return u, nil
}

// fill puts the encoded values into t, leaving out the query pairs of the
// parameters without a value (only optional ones are missing here).
func fill(t template, values map[string]string) string {
	sub := func(s string) string {
		return placeholderRE.ReplaceAllStringFunc(s, func(m string) string { return escape(values[m[1:len(m)-1]]) })
	}
	var b strings.Builder
	b.WriteString(sub(t.base))
	var pairs []string
	for _, pair := range t.query {
		missing := false
		for _, m := range placeholderRE.FindAllStringSubmatch(pair, -1) {
			if _, ok := values[m[1]]; !ok {
				missing = true
			}
		}
		if !missing {
			pairs = append(pairs, sub(pair))
		}
	}
	if t.hasQ && (len(pairs) > 0 || len(t.query) == 0) {
		b.WriteByte('?')
		b.WriteString(strings.Join(pairs, "&"))
	}
	if t.hasF {
		b.WriteByte('#')
		b.WriteString(sub(t.frag))
	}
	return b.String()
}

// value checks raw against q and returns its text (not yet encoded), or
// what is wrong with it ("must be …").
func value(q api.LinkParam, raw json.RawMessage) (string, string) {
	var s string
	isString := json.Unmarshal(raw, &s) == nil
	switch q.Type {
	case api.ParamString:
		if !isString {
			return "", "must be a string, not " + api.Clip(string(raw))
		}
		if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return "", "must not hold control characters (newlines, tabs)"
		}
		if s == "" {
			return "", "must not be empty"
		}
		if len(s) > api.MaxURL {
			return "", fmt.Sprintf("is longer than %d bytes", api.MaxURL)
		}
		if q.Enum != nil && !slices.Contains(q.Enum, s) {
			return "", fmt.Sprintf("must be one of %s, not %q", strings.Join(q.Enum, ", "), api.Clip(s))
		}
		if q.Pattern != "" && !regexp.MustCompile(anchored(q.Pattern)).MatchString(s) {
			return "", fmt.Sprintf("must match %s, which %q does not", q.Pattern, api.Clip(s))
		}
		return s, ""
	case api.ParamInteger:
		text := string(bytes.TrimSpace(raw))
		if isString {
			text = strings.TrimSpace(s)
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return "", "must be an integer, not " + api.Clip(string(raw))
		}
		return strconv.FormatInt(n, 10), ""
	case api.ParamNumber:
		text := string(bytes.TrimSpace(raw))
		if isString {
			text = strings.TrimSpace(s)
		}
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "", "must be a number, not " + api.Clip(string(raw))
		}
		return strconv.FormatFloat(f, 'f', -1, 64), ""
	case api.ParamBoolean:
		text := string(bytes.TrimSpace(raw))
		if isString {
			text = s
		}
		if text != "true" && text != "false" {
			return "", "must be true or false, not " + api.Clip(string(raw))
		}
		return text, ""
	}
	return "", "has an unknown type " + string(q.Type)
}

// escape percent-encodes everything but RFC 3986's unreserved characters.
func escape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// describe says what a parameter takes.
func describe(q api.LinkParam) string {
	s := string(q.Type)
	switch {
	case q.Enum != nil:
		s += " of " + strings.Join(q.Enum, ", ")
	case q.Pattern != "":
		s += " matching " + q.Pattern
	}
	if q.Description != "" {
		s += "; " + strings.TrimSuffix(q.Description, ".")
	}
	return "a " + s
}

func paramList(l api.DeepLink) string {
	var names []string
	for _, q := range l.Params {
		n := q.Name + " (" + string(q.Type)
		if q.Required {
			n += ", required"
		}
		names = append(names, n+")")
	}
	return orNone(names)
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
