package tmplescape

import (
	"fmt"
	"reflect"
	"text/template/parse"
)

// Check follows every path of the templates from entry, with data as the
// Go type of its dot, and returns a line for each name that is not a
// field or string map key of the type it is read from: a method (which
// tmplexec does not call) or a typo, even on a branch no test draws.
// funcs are the functions the templates call (their first result's type
// is what they give). Where a value's type is an interface, what it
// holds is not known and the path is not followed.
func Check(trees map[string]*parse.Tree, funcs map[string]any, entry string, data reflect.Type) []string {
	c := &typeCheck{trees: trees, funcs: map[string]reflect.Type{}, seen: map[string]bool{}}
	for name, f := range funcs {
		c.funcs[name] = reflect.TypeOf(f)
	}
	c.template(entry, data)
	return c.errs
}

// typeCheck walks templates with the static type of dot.
type typeCheck struct {
	trees map[string]*parse.Tree
	funcs map[string]reflect.Type
	seen  map[string]bool // template and dot type already walked
	vars  []typedVar
	tree  *parse.Tree
	errs  []string
}

type typedVar struct {
	name string
	typ  reflect.Type // nil: not known
}

func (c *typeCheck) errorf(n parse.Node, format string, args ...any) {
	loc, _ := c.tree.ErrorContext(n)
	c.errs = append(c.errs, fmt.Sprintf("%s: %s", loc, fmt.Sprintf(format, args...)))
}

func (c *typeCheck) template(name string, dot reflect.Type) {
	key := name + "\x00" + fmt.Sprint(dot)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	tree := c.trees[name]
	if tree == nil {
		c.errs = append(c.errs, fmt.Sprintf("no template %q", name))
		return
	}
	outerTree, outerVars := c.tree, c.vars
	c.tree, c.vars = tree, []typedVar{{"$", dot}}
	c.walk(tree.Root, dot)
	c.tree, c.vars = outerTree, outerVars
}

func (c *typeCheck) walk(n parse.Node, dot reflect.Type) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, x := range n.Nodes {
			c.walk(x, dot)
		}
	case *parse.ActionNode:
		c.pipe(n.Pipe, dot)
	case *parse.IfNode:
		mark := len(c.vars)
		c.pipe(n.Pipe, dot)
		c.walk(n.List, dot)
		c.walk(n.ElseList, dot)
		c.vars = c.vars[:mark]
	case *parse.WithNode:
		mark := len(c.vars)
		inner := c.pipe(n.Pipe, dot)
		c.walk(n.List, inner)
		c.walk(n.ElseList, dot)
		c.vars = c.vars[:mark]
	case *parse.RangeNode:
		mark := len(c.vars)
		coll := c.pipe(n.Pipe, dot)
		var key, elem reflect.Type
		if coll = deref(coll); coll != nil {
			switch coll.Kind() {
			case reflect.Slice, reflect.Array:
				key, elem = reflect.TypeFor[int](), coll.Elem()
			case reflect.Map:
				key, elem = coll.Key(), coll.Elem()
			case reflect.Int:
				key, elem = coll, coll
			}
		}
		if d := n.Pipe.Decl; len(d) > 0 {
			c.vars[len(c.vars)-1].typ = elem
			if len(d) > 1 {
				c.vars[len(c.vars)-2].typ = key
			}
		}
		c.walk(n.List, elem)
		c.vars = c.vars[:mark]
		c.walk(n.ElseList, dot)
	case *parse.TemplateNode:
		c.template(n.Name, c.pipe(n.Pipe, dot))
	}
}

// pipe is the type of pipe's value (nil: not known), declaring its
// variables.
func (c *typeCheck) pipe(p *parse.PipeNode, dot reflect.Type) reflect.Type {
	if p == nil {
		return nil
	}
	var typ reflect.Type
	for i, cmd := range p.Cmds {
		typ = c.command(cmd, dot, i > 0)
	}
	for _, v := range p.Decl {
		if !p.IsAssign {
			c.vars = append(c.vars, typedVar{v.Ident[0], typ})
		}
	}
	return typ
}

func (c *typeCheck) command(cmd *parse.CommandNode, dot reflect.Type, piped bool) reflect.Type {
	for _, a := range cmd.Args[1:] {
		c.arg(a, dot)
	}
	switch n := cmd.Args[0].(type) {
	case *parse.IdentifierNode:
		switch n.Ident {
		case "index":
			if len(cmd.Args) > 1 {
				t := deref(c.arg(cmd.Args[1], dot))
				for range cmd.Args[2:] {
					if t == nil || (t.Kind() != reflect.Map && t.Kind() != reflect.Slice && t.Kind() != reflect.Array) {
						return nil
					}
					t = t.Elem()
				}
				return t
			}
			return nil
		case "and", "or":
			return nil
		}
		if f, ok := c.funcs[n.Ident]; ok {
			return f.Out(0)
		}
		switch n.Ident {
		case "not", "eq", "ne", "lt", "le", "gt", "ge":
			return reflect.TypeFor[bool]()
		case "len":
			return reflect.TypeFor[int]()
		}
		return reflect.TypeFor[string]() // print, printf, the escapers
	default:
		return c.arg(cmd.Args[0], dot)
	}
}

// arg is the type of one operand.
func (c *typeCheck) arg(n parse.Node, dot reflect.Type) reflect.Type {
	switch n := n.(type) {
	case *parse.DotNode:
		return dot
	case *parse.FieldNode:
		return c.fields(n, dot, n.Ident)
	case *parse.VariableNode:
		var t reflect.Type
		found := false
		for i := len(c.vars) - 1; i >= 0; i-- {
			if c.vars[i].name == n.Ident[0] {
				t, found = c.vars[i].typ, true
				break
			}
		}
		if !found {
			c.errorf(n, "undefined variable %s", n.Ident[0])
			return nil
		}
		return c.fields(n, t, n.Ident[1:])
	case *parse.ChainNode:
		return c.fields(n, c.arg(n.Node, dot), n.Field)
	case *parse.PipeNode:
		return c.pipe(n, dot)
	case *parse.StringNode:
		return reflect.TypeFor[string]()
	case *parse.NumberNode:
		return reflect.TypeFor[int]()
	case *parse.BoolNode:
		return reflect.TypeFor[bool]()
	case *parse.IdentifierNode:
		if f, ok := c.funcs[n.Ident]; ok {
			return f.Out(0)
		}
	}
	return nil
}

// fields follows names from typ; nil where the type is not known.
func (c *typeCheck) fields(n parse.Node, typ reflect.Type, names []string) reflect.Type {
	for _, name := range names {
		typ = deref(typ)
		if typ == nil || typ.Kind() == reflect.Interface {
			return nil
		}
		switch typ.Kind() {
		case reflect.Struct:
			f, ok := typ.FieldByName(name)
			if !ok || !f.IsExported() {
				what := "no field"
				if _, isMethod := reflect.PointerTo(typ).MethodByName(name); isMethod {
					what = "a method, not a field (tmplexec calls no methods: give the page a function)"
				}
				c.errorf(n, "%s.%s: %s", typ, name, what)
				return nil
			}
			typ = f.Type
		case reflect.Map:
			if typ.Key().Kind() != reflect.String {
				c.errorf(n, "%s.%s: a map whose keys are not strings", typ, name)
				return nil
			}
			typ = typ.Elem()
		default:
			c.errorf(n, "%s.%s: %s has no fields", typ, name, typ.Kind())
			return nil
		}
	}
	return typ
}

// deref is t without its pointers.
func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
