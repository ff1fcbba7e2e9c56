package control

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// Summarize says a call's arguments in words for the box page's Activity,
// without secrets: which app, which URL (without its query, fragment or
// user), a touch's position or element, typed text as its length only, a key or a
// button by name. args is the tool's arguments (a typed api value or
// their JSON); members it does not know are left out.
func Summarize(args any) string {
	var raw []byte
	switch a := args.(type) {
	case json.RawMessage:
		raw = a
	case []byte:
		raw = a
	default:
		b, err := json.Marshal(args)
		if err != nil {
			return ""
		}
		raw = b
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var parts []string
	add := func(format string, v ...any) { parts = append(parts, fmt.Sprintf(format, v...)) }
	str := func(k string) (string, bool) { s, ok := m[k].(string); return s, ok && s != "" }
	num := func(k string) (float64, bool) { f, ok := m[k].(float64); return f, ok }

	if s, ok := str("command"); ok {
		add("command %s", clipWords(s, 20))
	}
	if s, ok := str("bundle_id"); ok {
		add("app %s", clipWords(s, 80))
	} else if s, ok := str("name"); ok {
		add("app %s", clipWords(s, 80))
	}
	if s, ok := str("link"); ok {
		add("link %s", clipWords(s, 40))
	}
	if ps, ok := m["params"].(map[string]any); ok && len(ps) > 0 {
		names := make([]string, 0, len(ps))
		for k := range ps {
			names = append(names, clipWords(k, 20))
		}
		slices.Sort(names)
		add("params %s", strings.Join(names, ", "))
	}
	if s, ok := str("url"); ok {
		add("URL %s", safeURL(s))
	}
	if s, ok := str("element"); ok {
		add("element %s", clipWords(s, 8))
	}
	if x, ok := num("x"); ok {
		if y, ok := num("y"); ok {
			add("at (%.2f, %.2f)", x, y)
		}
	}
	if x, ok := num("x2"); ok {
		if y, ok := num("y2"); ok {
			add("to (%.2f, %.2f)", x, y)
		}
	}
	if f, ok := num("seconds"); ok {
		add("%.1f s", f)
	}
	if t, ok := m["text"].(string); ok {
		add("%d characters typed", utf8.RuneCountInString(t))
	}
	if s, ok := str("key"); ok {
		mods := ""
		if ms, ok := m["modifiers"].([]any); ok {
			for _, v := range ms {
				if s, ok := v.(string); ok {
					mods += clipWords(s, 10) + "+"
				}
			}
		}
		add("key %s%s", mods, clipWords(s, 20))
	}
	if s, ok := str("button"); ok {
		add("button %s", clipWords(s, 20))
	}
	if s, ok := str("query"); ok {
		add("query %q", clipWords(s, 40))
	}
	if s, ok := str("target"); ok {
		add("target %s", clipWords(s, 36))
	}
	if f, ok := num("max_size"); ok {
		add("max %d px", int(f))
	}
	return strings.Join(parts, ", ")
}

// safeURL is u without what may carry secrets: user info, query and
// fragment.
func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" {
		return "(not a URL)"
	}
	out := p.Scheme + "://" + p.Host + p.EscapedPath()
	if p.RawQuery != "" || p.Fragment != "" {
		out += " (query left out)"
	}
	return clipWords(out, 120)
}

func clipWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
