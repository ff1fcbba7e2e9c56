package scripts

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxRealSleeps is how many times the tests may sleep on the real clock.
// A test waits on an event, a channel or a condition, or runs in a
// testing/synctest bubble where time is fake; only a wait on something
// that tells no one when it is done (a real kernel, browser or socket
// server) may sleep, and it says why with a realWaitMark comment. Polls
// with a deadline and timers that fire a fault at a chosen moment are not
// sleeps. A test that needs an http.Server to have read a request (a
// shutdown with a request in flight) waits on waittest.Requests.
const maxRealSleeps = 5

// realWaitMark starts the comment a real sleep carries, on its line or
// in the comment just above it.
const realWaitMark = "// real wait:"

// sleepSite is one sleep on the real clock: a time.Sleep call, or a bare
// <-time.After statement, outside a synctest bubble.
type sleepSite struct {
	pos    token.Position
	marked bool
}

func (s sleepSite) String() string {
	mark := "bare"
	if s.marked {
		mark = "marked"
	}
	return fmt.Sprintf("%s:%d:%s", filepath.ToSlash(s.pos.Filename), s.pos.Line, mark)
}

// TestRealSleepsInTests fails when the tests (every _test.go file and
// the test helper packages, whose directory names end in "test") sleep on
// the real clock more than maxRealSleeps times, or when a real sleep does
// not say why.
func TestRealSleepsInTests(t *testing.T) {
	sites, err := realSleeps("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sites {
		t.Logf("real sleep: %s", s)
		if !s.marked {
			t.Errorf("%s: a test sleeps on the real clock; wait on an event or a condition, or run it in synctest.Test (a wait on another process says why in a %q comment)", s.pos, realWaitMark)
		}
	}
	if len(sites) > maxRealSleeps {
		t.Errorf("the tests sleep on the real clock at %d places, more than %d", len(sites), maxRealSleeps)
	}
}

// TestRealSleepsFindsThem runs the check over testdata/sleeps, which
// sleeps in a bubble, in a bubble's helper, with and without a reason.
func TestRealSleepsFindsThem(t *testing.T) {
	sites, err := realSleeps("testdata/sleeps")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sites {
		got = append(got, s.String())
	}
	want := []string{
		"testdata/sleeps/fake_test.go:13:marked",
		"testdata/sleeps/fake_test.go:17:marked",
		"testdata/sleeps/fake_test.go:21:bare",
		"testdata/sleeps/fake_test.go:25:bare",
		"testdata/sleeps/waittest/wait.go:9:bare",
	}
	if !slices.Equal(got, want) {
		t.Errorf("realSleeps found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// realSleeps lists the real sleeps in the tests below root.
func realSleeps(root string) ([]sleepSite, error) {
	var sites []sleepSite
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "vendor" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || !isTest(root, path) {
			return nil
		}
		found, err := fileSleeps(path)
		sites = append(sites, found...)
		return err
	})
	return sites, err
}

// isTest reports whether the Go file at path is test code: a _test.go
// file, or a file in a test helper package (a directory named *test).
func isTest(root, path string) bool {
	if strings.HasSuffix(path, "_test.go") {
		return true
	}
	rel, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil {
		return false
	}
	for _, dir := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasSuffix(dir, "test") {
			return true
		}
	}
	return false
}

// fileSleeps parses one file and lists its real sleeps.
func fileSleeps(path string) ([]sleepSite, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("reading %s for sleeps: %w", path, err)
	}
	// Lines a realWaitMark comment covers: its own and the next one.
	marked := map[int]bool{}
	for _, g := range f.Comments {
		if !strings.Contains(g.Text(), strings.TrimPrefix(realWaitMark, "// ")) {
			continue
		}
		for l := fset.Position(g.Pos()).Line; l <= fset.Position(g.End()).Line+1; l++ {
			marked[l] = true
		}
	}
	// Bubbles: the func literals handed to synctest.Test (or Run).
	var bubbles []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && (isCall(call, "synctest", "Test") || isCall(call, "synctest", "Run")) {
			for _, a := range call.Args {
				if lit, ok := a.(*ast.FuncLit); ok {
					bubbles = append(bubbles, lit)
				}
			}
		}
		return true
	})
	inBubble := func(n ast.Node) bool {
		return slices.ContainsFunc(bubbles, func(b ast.Node) bool { return b.Pos() <= n.Pos() && n.End() <= b.End() })
	}
	var sites []sleepSite
	add := func(n ast.Node) {
		if inBubble(n) {
			return
		}
		pos := fset.Position(n.Pos())
		sites = append(sites, sleepSite{pos: pos, marked: marked[pos.Line]})
	}
	// A select case's <-time.After is a timeout, not a sleep.
	cases := map[ast.Stmt]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CommClause); ok && c.Comm != nil {
			cases[c.Comm] = true
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if isCall(n, "time", "Sleep") {
				add(n)
			}
		case *ast.ExprStmt:
			if u, ok := n.X.(*ast.UnaryExpr); ok && u.Op == token.ARROW && !cases[n] {
				if call, ok := u.X.(*ast.CallExpr); ok && isCall(call, "time", "After") {
					add(n)
				}
			}
		}
		return true
	})
	return sites, nil
}

// isCall reports whether call calls pkg.name.
func isCall(call *ast.CallExpr, pkg, name string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}
