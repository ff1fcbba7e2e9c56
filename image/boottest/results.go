package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// results tallies checks and prints one line each.
type results struct {
	out                  io.Writer
	passed, failed, skip int
	failures             []string
}

// check records one check: err nil passes; an error wrapping errNotServed
// is printed as SKIP (the box does not serve that piece yet) and counted
// apart; any other error fails.
func (r *results) check(name string, err error) bool {
	switch {
	case err == nil:
		r.passed++
		fmt.Fprintf(r.out, "PASS %s\n", name)
		return true
	case errors.Is(err, errNotServed):
		r.skip++
		fmt.Fprintf(r.out, "SKIP %s: %v\n", name, err)
	default:
		r.failed++
		r.failures = append(r.failures, name)
		fmt.Fprintf(r.out, "FAIL %s: %v\n", name, err)
	}
	return false
}

// figure prints a measured figure.
func (r *results) figure(name string, format string, args ...any) {
	fmt.Fprintf(r.out, "FIGURE %s: %s\n", name, fmt.Sprintf(format, args...))
}

// summary is the closing line.
func (r *results) summary() string {
	s := fmt.Sprintf("%d passed, %d failed", r.passed, r.failed)
	if r.skip > 0 {
		s += fmt.Sprintf(" (%d skipped: not served by this box yet)", r.skip)
	}
	if r.failed > 0 {
		s += "\nfailed: " + strings.Join(r.failures, "; ")
	}
	return s
}
