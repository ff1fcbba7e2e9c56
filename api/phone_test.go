package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// constsOf lists the values of the constants of type typ declared in
// file (of this package).
func constsOf(t *testing.T, file, typ string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != typ {
				continue
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					out = append(out, strings.Trim(lit.Value, `"`))
				}
			}
		}
	}
	return out
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// PhoneStates and Backends list every constant of their type, once.
func TestListsNameEveryConstant(t *testing.T) {
	for _, tt := range []struct {
		typ    string
		listed []string
	}{
		{"PhoneState", strs(PhoneStates())},
		{"Backend", strs(Backends())},
		{"Problem", strs(Problems())},
	} {
		declared := constsOf(t, "phone.go", tt.typ)
		if len(declared) == 0 {
			t.Fatalf("phone.go declares no %s constant", tt.typ)
		}
		got := slices.Sorted(slices.Values(tt.listed))
		want := slices.Sorted(slices.Values(declared))
		if !slices.Equal(slices.Compact(got), want) || len(got) != len(tt.listed) {
			t.Errorf("the list of %s is %v; phone.go declares %v (each once)", tt.typ, tt.listed, declared)
		}
	}
}

// openlolo_status's state description names every state code and no
// other ("a, b or c.").
func TestStateDescriptionNamesEveryState(t *testing.T) {
	f, _ := reflect.TypeFor[PhoneStatus]().FieldByName("State")
	desc := strings.TrimSuffix(f.Tag.Get("desc"), ".")
	head, last, _ := strings.Cut(desc, " or ")
	named := append(strings.Split(head, ", "), last)
	if !slices.Equal(named, strs(PhoneStates())) {
		t.Errorf("PhoneStatus.State's description names %v; the states are %v", named, PhoneStates())
	}
}
