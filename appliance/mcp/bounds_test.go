package mcp

import (
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
)

// The numbers a description states, and what each must match.
var (
	descRange   = regexp.MustCompile(`(\d+(?:,\d{3})*(?:\.\d+)?)\.\.(\d+(?:,\d{3})*(?:\.\d+)?)`)
	descDefault = regexp.MustCompile(`default (\d+(?:,\d{3})*(?:\.\d+)?)`)
	descMax     = regexp.MustCompile(`(?:max|up to) (\d+(?:,\d{3})*(?:\.\d+)?) characters|max (\d+(?:,\d{3})*(?:\.\d+)?)\)`)
	descLease   = regexp.MustCompile(`lapses after (\d+) s`)
)

// TestDescriptionsMatchTheBounds: every range, default and maximum a
// tool's description (on tools/list or in the reference) states is one of that tool's arguments' in the api
// bounds table, and every lease time the box's texts state is api's; a
// number written into a description by hand and left behind when a bound
// changes fails here.
func TestDescriptionsMatchTheBounds(t *testing.T) {
	for _, tl := range catalog() {
		var ranges, defaults, maxima []string
		for _, f := range reflect.VisibleFields(tl.args) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			b, ok := api.BoundOf(tl.name, name)
			if f.Anonymous || !ok {
				continue
			}
			if b.Ranged {
				ranges = append(ranges, num(b.Min)+".."+num(b.Max))
				maxima = append(maxima, num(b.Max))
			}
			if b.MaxLen > 0 {
				ranges = append(ranges, num(float64(b.MinLen))+".."+num(float64(b.MaxLen)))
				maxima = append(maxima, num(float64(b.MaxLen)))
			}
			if b.Default != nil {
				defaults = append(defaults, def(tl.name, name))
			}
		}
		text := tl.desc + " " + tl.more
		for _, m := range descRange.FindAllStringSubmatch(text, -1) {
			if r := plain(m[1]) + ".." + plain(m[2]); !slices.Contains(ranges, r) {
				t.Errorf("%s's description says %s; its arguments' ranges are %v", tl.name, m[0], ranges)
			}
		}
		for _, m := range descDefault.FindAllStringSubmatch(text, -1) {
			if !slices.Contains(defaults, plain(m[1])) {
				t.Errorf("%s's description says %q; its arguments' defaults are %v", tl.name, m[0], defaults)
			}
		}
		for _, m := range descMax.FindAllStringSubmatch(text, -1) {
			if n := plain(m[1] + m[2]); !slices.Contains(maxima, n) {
				t.Errorf("%s's description says %q; its arguments' maxima are %v", tl.name, m[0], maxima)
			}
		}
	}
	texts := []string{instructions}
	for _, tl := range catalog() {
		texts = append(texts, tl.desc, tl.more)
	}
	lease := strconv.Itoa(int(api.LeaseTime.Seconds()))
	for _, s := range texts {
		for _, m := range descLease.FindAllStringSubmatch(s, -1) {
			if m[1] != lease {
				t.Errorf("%q: control lapses after %s s", m[0], lease)
			}
		}
	}
}

// plain drops a number's thousands commas.
func plain(s string) string { return strings.ReplaceAll(s, ",", "") }

// The describing helpers write numbers and lists as the descriptions
// always have.
func TestDescribingHelpers(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{spanDefault(api.ToolScreenshot, "max_size"), "128..4096, default 1536"},
		{spanDefault(api.ToolLongPress, "seconds"), "0.03..2, default 1"},
		{span(api.ToolSwipe, "hold"), "0..2"},
		{most(api.ToolTypeText, "text"), "500"},
		{def(api.ToolFullPage, "settle"), "0.7"},
		{grouped(10000), "10,000"},
		{grouped(999), "999"},
		{grouped(1234567), "1,234,567"},
		{secs(api.LeaseTime), "90 s"},
		{secs(api.FrameCoalesce), "250 ms"},
		{words([]string{"a", "b", "c"}, "or"), "a, b or c"},
		{words([]string{"a", "b"}, ""), "a, b"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestPromptNamesTheCodes: every error code a tool's longer description
// names (what tools/list no longer carries) is in the operate_phone
// prompt, so an agent that reads the prompt loses none of them.
func TestPromptNamesTheCodes(t *testing.T) {
	word := regexp.MustCompile(`[A-Z][A-Z_]+[A-Z]`)
	for _, tl := range catalog() {
		for _, w := range word.FindAllString(tl.more, -1) {
			if !slices.Contains(api.Codes(), api.Code(w)) {
				continue
			}
			if !regexp.MustCompile(`\b` + w + `\b`).MatchString(operateText) {
				t.Errorf("%s's description names %s; the operate_phone prompt does not", tl.name, w)
			}
		}
	}
}
