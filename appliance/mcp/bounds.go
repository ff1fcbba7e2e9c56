package mcp

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
)

// The numbers and lists a tool description states come from the contract
// (api's bounds table, limits and vocabularies), never from prose, so a
// description cannot drift from what the box checks.

// bound is tool's argument arg in the contract's table; a programming
// error (a panic at catalog build, caught by every test) when it has none.
func bound(tool api.Tool, arg string) api.Bound {
	b, ok := api.BoundOf(tool, arg)
	if !ok {
		panic(fmt.Sprintf("mcp: %s.%s has no bound in the api table", tool, arg))
	}
	return b
}

// span is an argument's range as "lo..hi": a number's range, else its
// length.
func span(tool api.Tool, arg string) string {
	b := bound(tool, arg)
	if b.Ranged {
		return num(b.Min) + ".." + num(b.Max)
	}
	return num(float64(b.MinLen)) + ".." + num(float64(b.MaxLen))
}

// spanDefault is "lo..hi, default d".
func spanDefault(tool api.Tool, arg string) string {
	return span(tool, arg) + ", default " + def(tool, arg)
}

// def is an argument's default.
func def(tool api.Tool, arg string) string {
	switch d := bound(tool, arg).Default.(type) {
	case float64:
		return num(d)
	case int:
		return num(float64(d))
	default:
		return fmt.Sprint(d)
	}
}

// most is an argument's largest value or length.
func most(tool api.Tool, arg string) string {
	b := bound(tool, arg)
	if b.Ranged {
		return num(b.Max)
	}
	return num(float64(b.MaxLen))
}

// num writes a number as the descriptions do: its shortest decimal.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// grouped writes a whole number with its thousands grouped by commas
// (10,000).
func grouped(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// secs is a duration in whole seconds or milliseconds: "90 s", "250 ms".
func secs(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.Itoa(int(d/time.Second)) + " s"
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
}

// words lists vs joined by ", ", the last two by last when it is set
// ("a, b or c").
func words[T ~string](vs []T, last string) string {
	var b strings.Builder
	for i, v := range vs {
		switch {
		case i == 0:
		case i == len(vs)-1 && last != "":
			b.WriteString(" " + last + " ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(v))
	}
	return b.String()
}
