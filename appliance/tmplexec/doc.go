// Package tmplexec executes text/template parse trees reading struct
// fields and map keys only: the box's pages, its setup page and llms.txt.
//
// text/template's executor looks a method up by a name known only at run
// time (reflect.Value.MethodByName, for {{.Name}} that may be a method).
// Once such a call is in a binary, the Go linker keeps every exported
// method of every type converted to an interface, which for the box's
// Tailscale types is about 6 MB of a 34 MB binary (docs/size.md). This
// executor never looks a method up, so the linker prunes them again.
//
// HTML pages keep html/template's contextual escaping: a test escapes the
// page templates with html/template (package tmplescape writes the
// escaped trees out as text, checked into the tree beside the source) and
// renders every page both ways, comparing the bytes; tmplescape.Check
// follows every path of a page with its data's Go types, so a method or
// a missing field fails a test even on a branch no test draws. The escaper
// functions html/template inserts (_html_template_htmlescaper and the
// others in this package's escapers.go) are known to every Set.
//
// What it runs: text, actions, if/else, with, range (slices, arrays,
// maps in key order, integers) with break and continue, variables,
// {{template}}, {{define}}, pipelines, the builtins and, or, not, eq, ne,
// lt, le, gt, ge, len, index, print, printf and println, and the
// functions the caller gives. A field that is not there, a method, or a
// function not given is an error naming the template and place.
package tmplexec
