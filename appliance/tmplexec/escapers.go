package tmplexec

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// escapers are the functions html/template's escaping inserts into a
// page's actions that the box's pages use, under html/template's names,
// each giving the bytes html/template's own does. Of html/template's typed
// strings only HTML has a counterpart here (the pages' markup, in text).
func escapers() map[string]any {
	return map[string]any{
		"_html_template_htmlescaper":   htmlEscaper,
		"_html_template_attrescaper":   textOnly(htmlEscaper),
		"_html_template_rcdataescaper": textOnly(htmlEscaper),
		"_html_template_urlfilter":     urlFilter,
		"_html_template_urlescaper":    func(args ...any) string { return urlProcess(false, args...) },
		"_html_template_urlnormalizer": func(args ...any) string { return urlProcess(true, args...) },
	}
}

// HTML is markup a page's function made safe itself (as html/template's
// HTML): written as it is where a page writes text, and refused in an
// attribute or a title, where html/template would rewrite it.
type HTML string

// EscapeHTML escapes s for HTML text and quoted attributes, as the
// pages' actions are.
func EscapeHTML(s string) string { return htmlEscaper(s) }

// textOnly refuses HTML where html/template would strip its tags, which
// the box's pages never ask for.
func textOnly(escape func(...any) string) func(...any) (string, error) {
	return func(args ...any) (string, error) {
		if len(args) == 1 {
			if _, ok := derefAny(args[0]).(HTML); ok {
				return "", errors.New("markup (tmplexec.HTML) in an attribute or a title: give the page text there")
			}
		}
		return escape(args...), nil
	}
}

// stringify is html/template's text of an action's values: a lone string
// as it is, otherwise fmt.Sprint of the values with untyped nils left out
// and pointers followed to a Stringer, an error or a value.
func stringify(args ...any) string {
	if len(args) == 1 {
		if s, ok := derefAny(args[0]).(string); ok {
			return s
		}
	}
	kept := make([]any, 0, len(args))
	for _, a := range args {
		if a == nil {
			continue
		}
		v := reflect.ValueOf(a)
		for !v.Type().Implements(stringerType) && !v.Type().Implements(errorType) && v.Kind() == reflect.Pointer && !v.IsNil() {
			v = v.Elem()
		}
		kept = append(kept, v.Interface())
	}
	return fmt.Sprint(kept...)
}

func derefAny(a any) any {
	if a == nil || reflect.TypeOf(a).Kind() != reflect.Pointer {
		return a
	}
	v := reflect.ValueOf(a)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return v.Interface()
}

// htmlReplacements are the characters html/template escapes in HTML text,
// attributes and RCDATA.
var htmlReplacements = [...]string{
	0:    "\uFFFD",
	'"':  "&#34;",
	'&':  "&amp;",
	'\'': "&#39;",
	'+':  "&#43;",
	'<':  "&lt;",
	'>':  "&gt;",
}

func htmlEscaper(args ...any) string {
	if len(args) == 1 {
		if h, ok := derefAny(args[0]).(HTML); ok {
			return string(h)
		}
	}
	s := stringify(args...)
	var b strings.Builder
	written := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if int(r) < len(htmlReplacements) && htmlReplacements[r] != "" {
			if written == 0 {
				b.Grow(len(s) + 8)
			}
			b.WriteString(s[written:i])
			b.WriteString(htmlReplacements[r])
			written = i + w
		}
		i += w
	}
	if written == 0 {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}

// urlFilter refuses a URL whose scheme is not http, https or mailto, as
// html/template does, with its "#ZgotmplZ".
func urlFilter(args ...any) string {
	s := stringify(args...)
	if scheme, _, ok := strings.Cut(s, ":"); ok && !strings.Contains(scheme, "/") {
		if !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") && !strings.EqualFold(scheme, "mailto") {
			return "#ZgotmplZ"
		}
	}
	return s
}

// urlProcess percent-encodes what RFC 3986 does not leave unreserved;
// norm keeps the reserved characters and valid escapes (a whole URL),
// otherwise they are encoded too (a part of a query).
func urlProcess(norm bool, args ...any) string {
	s := stringify(args...)
	var b strings.Builder
	written := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte("!#$&*+,/:;=?@[]", c) >= 0:
			if norm {
				continue
			}
		case c == '-' || c == '.' || c == '_' || c == '~',
			'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			continue
		case c == '%':
			if norm && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				continue
			}
		}
		b.WriteString(s[written:i])
		fmt.Fprintf(&b, "%%%02x", c)
		written = i + 1
	}
	if written == 0 {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
