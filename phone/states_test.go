package phone_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
)

// TestBackendsUseTheContractsWords: a state code or backend name a backend
// writes as a string (in a State, a Readiness or an Info, assigned to a
// .Code or compared with one) is one of api's, so openlolo_status never
// reports a code the contract does not list. Backends normally name api's
// constants; this catches the literal that slipped past.
func TestBackendsUseTheContractsWords(t *testing.T) {
	states := strs(api.PhoneStates())
	backends := strs(api.Backends())
	found := 0
	// The backends live in hw/, beside this package.
	err := filepath.WalkDir(filepath.Join("..", "hw"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		check := func(what string, e ast.Expr, allowed []string) {
			lit, ok := e.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return
			}
			found++
			if s, _ := strconv.Unquote(lit.Value); !slices.Contains(allowed, s) {
				t.Errorf("%s: %s %s is not in the api's list %v: add it to api (and docs/wire.md) or use one of those", fset.Position(lit.Pos()), what, lit.Value, allowed)
			}
		}
		isCode := func(e ast.Expr) bool {
			s, ok := e.(*ast.SelectorExpr)
			return ok && s.Sel.Name == "Code"
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				switch typeName(n.Type) {
				case "State", "Readiness", "Info":
				default:
					return true
				}
				for _, e := range n.Elts {
					kv, ok := e.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					switch k, _ := kv.Key.(*ast.Ident); {
					case k == nil:
					case k.Name == "Code":
						check("state code", kv.Value, states)
					case k.Name == "Backend":
						check("backend", kv.Value, backends)
					}
				}
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					if isCode(l) && i < len(n.Rhs) {
						check("state code", n.Rhs[i], states)
					}
				}
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					if isCode(n.X) {
						check("state code", n.Y, states)
					}
					if isCode(n.Y) {
						check("state code", n.X, states)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d literal state codes and backend names in hw", found)
}

// typeName is the name of a composite literal's type (State for
// phone.State).
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
