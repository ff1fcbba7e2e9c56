package tmplexec

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"text/template/parse"
)

// maxDepth bounds {{template}} recursion, as text/template does.
const maxDepth = 10000

// FuncMap names the functions a template may call, as text/template's
// FuncMap: each returns one value, or a value and an error.
type FuncMap map[string]any

// Set is a parsed set of templates, each executable by name.
type Set struct {
	trees map[string]*parse.Tree
	funcs map[string]reflect.Value
}

// Parse parses text, whose {{define}} blocks (and whose text outside them,
// under name) become the set's templates. Actions may call funcs, the
// builtins and html/template's escapers.
func Parse(name, text string, funcs FuncMap) (*Set, error) {
	s := &Set{funcs: map[string]reflect.Value{}}
	known := map[string]any{}
	add := func(m map[string]any) error {
		for n, f := range m {
			v := reflect.ValueOf(f)
			if v.Kind() != reflect.Func {
				return fmt.Errorf("tmplexec: %s is not a function", n)
			}
			if no := v.Type().NumOut(); no == 0 || no > 2 || no == 2 && v.Type().Out(1) != errorType {
				return fmt.Errorf("tmplexec: function %s must return a value, or a value and an error", n)
			}
			s.funcs[n] = v
			known[n] = f
		}
		return nil
	}
	if err := add(builtins()); err != nil {
		return nil, err
	}
	if err := add(escapers()); err != nil {
		return nil, err
	}
	if err := add(funcs); err != nil {
		return nil, err
	}
	known["and"], known["or"] = true, true // evaluated lazily, below
	trees, err := parse.Parse(name, text, "", "", known)
	if err != nil {
		return nil, fmt.Errorf("tmplexec: %w", err)
	}
	s.trees = trees
	return s, nil
}

// Has reports whether the set has a template of that name.
func (s *Set) Has(name string) bool { return s.trees[name] != nil }

// Trees are the set's parse trees by template name, for checks of what
// the templates read; the caller must not change them.
func (s *Set) Trees() map[string]*parse.Tree { return s.trees }

// Execute writes the template name with data as its dot and $.
func (s *Set) Execute(w io.Writer, name string, data any) error {
	t := s.trees[name]
	if t == nil || t.Root == nil {
		return fmt.Errorf("tmplexec: no template %q", name)
	}
	st := &state{set: s, w: w, tree: t}
	v := reflect.ValueOf(data)
	st.vars = []variable{{"$", v}}
	err := st.walk(v, t.Root)
	if errors.Is(err, errBreak) || errors.Is(err, errContinue) {
		err = nil // the parser allows neither outside a range
	}
	return err
}

type variable struct {
	name  string
	value reflect.Value
}

type state struct {
	set   *Set
	w     io.Writer
	tree  *parse.Tree
	node  parse.Node // the node being run, for errors
	vars  []variable
	depth int
}

var (
	errBreak     = errors.New("break")
	errContinue  = errors.New("continue")
	errorType    = reflect.TypeFor[error]()
	stringerType = reflect.TypeFor[fmt.Stringer]()
	valueType    = reflect.TypeFor[reflect.Value]()
)

// errorf is an execution error at the current node.
func (st *state) errorf(format string, args ...any) error {
	where := st.tree.ParseName
	if st.node != nil {
		loc, _ := st.tree.ErrorContext(st.node)
		where = loc
	}
	return fmt.Errorf("tmplexec: %s: executing %q: "+format, append([]any{where, st.tree.Name}, args...)...)
}

func (st *state) push(name string, v reflect.Value) { st.vars = append(st.vars, variable{name, v}) }
func (st *state) mark() int                         { return len(st.vars) }
func (st *state) pop(mark int)                      { st.vars = st.vars[:mark] }

// setTopVar sets the n-th variable from the top.
func (st *state) setTopVar(n int, v reflect.Value) { st.vars[len(st.vars)-n].value = v }

func (st *state) setVar(name string, v reflect.Value) error {
	for i := len(st.vars) - 1; i >= 0; i-- {
		if st.vars[i].name == name {
			st.vars[i].value = v
			return nil
		}
	}
	return st.errorf("undefined variable: %s", name)
}

func (st *state) varValue(name string) (reflect.Value, error) {
	for i := len(st.vars) - 1; i >= 0; i-- {
		if st.vars[i].name == name {
			return st.vars[i].value, nil
		}
	}
	return reflect.Value{}, st.errorf("undefined variable: %s", name)
}

func (st *state) walk(dot reflect.Value, node parse.Node) error {
	st.node = node
	switch n := node.(type) {
	case *parse.ActionNode:
		v, err := st.evalPipeline(dot, n.Pipe)
		if err != nil || len(n.Pipe.Decl) > 0 {
			return err
		}
		return st.print(n, v)
	case *parse.BreakNode:
		return errBreak
	case *parse.ContinueNode:
		return errContinue
	case *parse.CommentNode:
		return nil
	case *parse.IfNode:
		return st.ifOrWith(parse.NodeIf, dot, n.Pipe, n.List, n.ElseList)
	case *parse.WithNode:
		return st.ifOrWith(parse.NodeWith, dot, n.Pipe, n.List, n.ElseList)
	case *parse.ListNode:
		for _, c := range n.Nodes {
			if err := st.walk(dot, c); err != nil {
				return err
			}
		}
		return nil
	case *parse.RangeNode:
		return st.walkRange(dot, n)
	case *parse.TemplateNode:
		return st.walkTemplate(dot, n)
	case *parse.TextNode:
		_, err := st.w.Write(n.Text)
		return err
	}
	return st.errorf("unknown node: %s", node)
}

func (st *state) ifOrWith(typ parse.NodeType, dot reflect.Value, pipe *parse.PipeNode, list, elseList *parse.ListNode) error {
	defer st.pop(st.mark())
	v, err := st.evalPipeline(dot, pipe)
	if err != nil {
		return err
	}
	truth, ok := isTrue(indirectInterface(v))
	if !ok {
		return st.errorf("if/with can't use %v", v)
	}
	switch {
	case truth && typ == parse.NodeWith:
		return st.walk(v, list)
	case truth:
		return st.walk(dot, list)
	case elseList != nil:
		return st.walk(dot, elseList)
	}
	return nil
}

func (st *state) walkRange(dot reflect.Value, r *parse.RangeNode) error {
	st.node = r
	defer st.pop(st.mark())
	v, err := st.evalPipeline(dot, r.Pipe)
	if err != nil {
		return err
	}
	v, _ = indirect(v)
	mark := st.mark()
	one := func(index, elem reflect.Value) error {
		decl := r.Pipe.Decl
		if len(decl) > 0 {
			if r.Pipe.IsAssign {
				target := elem
				if len(decl) > 1 {
					target = index
				}
				if err := st.setVar(decl[0].Ident[0], target); err != nil {
					return err
				}
			} else {
				st.setTopVar(1, elem)
			}
		}
		if len(decl) > 1 {
			if r.Pipe.IsAssign {
				if err := st.setVar(decl[1].Ident[0], elem); err != nil {
					return err
				}
			} else {
				st.setTopVar(2, index)
			}
		}
		defer st.pop(st.mark())
		err := st.walk(elem, r.List)
		if errors.Is(err, errContinue) {
			err = nil
		}
		return err
	}
	n := 0
	switch v.Kind() {
	case reflect.Array, reflect.Slice:
		n = v.Len()
		for i := range n {
			if err := one(reflect.ValueOf(i), v.Index(i)); err != nil {
				return stopped(err)
			}
		}
	case reflect.Map:
		keys, err := sortedKeys(v)
		if err != nil {
			return st.errorf("range: %v", err)
		}
		n = len(keys)
		for _, k := range keys {
			if err := one(k, v.MapIndex(k)); err != nil {
				return stopped(err)
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if len(r.Pipe.Decl) > 1 {
			return st.errorf("can't use %v to iterate over more than one variable", v)
		}
		n = int(v.Convert(reflect.TypeFor[int64]()).Int())
		for i := range n {
			e := reflect.ValueOf(i).Convert(v.Type())
			if err := one(e, e); err != nil {
				return stopped(err)
			}
		}
	case reflect.Invalid:
	default:
		return st.errorf("range can't iterate over %v", v)
	}
	st.pop(mark)
	if n == 0 && r.ElseList != nil {
		return st.walk(dot, r.ElseList)
	}
	return nil
}

// stopped ends a range: a break is no error, anything else is.
func stopped(err error) error {
	if errors.Is(err, errBreak) {
		return nil
	}
	return err
}

// sortedKeys orders a map's keys as text/template does for the kinds a
// page ranges over: numbers, strings and booleans.
func sortedKeys(m reflect.Value) ([]reflect.Value, error) {
	keys := m.MapKeys()
	var c func(a, b reflect.Value) int
	switch m.Type().Key().Kind() {
	case reflect.String:
		c = func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c = func(a, b reflect.Value) int { return cmp.Compare(a.Int(), b.Int()) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c = func(a, b reflect.Value) int { return cmp.Compare(a.Uint(), b.Uint()) }
	case reflect.Float32, reflect.Float64:
		c = func(a, b reflect.Value) int { return cmp.Compare(a.Float(), b.Float()) }
	case reflect.Bool:
		c = func(a, b reflect.Value) int {
			return cmp.Compare(boolInt(a.Bool()), boolInt(b.Bool()))
		}
	default:
		return nil, fmt.Errorf("keys of %s have no order here", m.Type().Key())
	}
	slices.SortFunc(keys, c)
	return keys, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (st *state) walkTemplate(dot reflect.Value, t *parse.TemplateNode) error {
	st.node = t
	tree := st.set.trees[t.Name]
	if tree == nil {
		return st.errorf("template %q not defined", t.Name)
	}
	if st.depth >= maxDepth {
		return st.errorf("exceeded maximum template depth (%v)", maxDepth)
	}
	v, err := st.evalPipeline(dot, t.Pipe)
	if err != nil {
		return err
	}
	inner := &state{set: st.set, w: st.w, tree: tree, depth: st.depth + 1, vars: []variable{{"$", v}}}
	return inner.walk(v, tree.Root)
}

// evalPipeline runs pipe's commands, each one's value the last argument
// of the next, and declares or assigns its variables.
func (st *state) evalPipeline(dot reflect.Value, pipe *parse.PipeNode) (reflect.Value, error) {
	if pipe == nil {
		return reflect.Value{}, nil
	}
	st.node = pipe
	var v reflect.Value
	final := missing
	for _, cmd := range pipe.Cmds {
		var err error
		v, err = st.evalCommand(dot, cmd, final)
		if err != nil {
			return reflect.Value{}, err
		}
		if v.Kind() == reflect.Interface && v.Type().NumMethod() == 0 {
			v = reflect.ValueOf(v.Interface()) // the thing inside an any
		}
		final = v
	}
	for _, d := range pipe.Decl {
		if pipe.IsAssign {
			if err := st.setVar(d.Ident[0], v); err != nil {
				return reflect.Value{}, err
			}
		} else {
			st.push(d.Ident[0], v)
		}
	}
	return v, nil
}

// missing marks "no final value" (the first command of a pipeline), as
// distinct from an invalid one.
var missing = reflect.ValueOf(missingType{})

type missingType struct{}

func isMissing(v reflect.Value) bool {
	return v.IsValid() && v.Type() == reflect.TypeFor[missingType]()
}

func (st *state) notAFunction(args []parse.Node, final reflect.Value) error {
	if len(args) > 1 || !isMissing(final) {
		return st.errorf("can't give argument to non-function %s", args[0])
	}
	return nil
}

func (st *state) evalCommand(dot reflect.Value, cmd *parse.CommandNode, final reflect.Value) (reflect.Value, error) {
	st.node = cmd
	switch n := cmd.Args[0].(type) {
	case *parse.FieldNode:
		return st.evalFieldChain(dot, n, n.Ident, cmd.Args, final)
	case *parse.ChainNode:
		return st.evalChain(dot, n, cmd.Args, final)
	case *parse.IdentifierNode:
		return st.evalFunction(dot, n, cmd.Args, final)
	case *parse.PipeNode:
		if err := st.notAFunction(cmd.Args, final); err != nil {
			return reflect.Value{}, err
		}
		return st.evalPipeline(dot, n)
	case *parse.VariableNode:
		return st.evalVariable(dot, n, cmd.Args, final)
	}
	if err := st.notAFunction(cmd.Args, final); err != nil {
		return reflect.Value{}, err
	}
	switch n := cmd.Args[0].(type) {
	case *parse.BoolNode:
		return reflect.ValueOf(n.True), nil
	case *parse.DotNode:
		return dot, nil
	case *parse.NilNode:
		return reflect.Value{}, st.errorf("nil is not a command")
	case *parse.NumberNode:
		return st.idealConstant(n)
	case *parse.StringNode:
		return reflect.ValueOf(n.Text), nil
	}
	return reflect.Value{}, st.errorf("can't evaluate command %q", cmd.Args[0])
}

func (st *state) idealConstant(n *parse.NumberNode) (reflect.Value, error) {
	switch {
	case n.IsFloat && strings.ContainsAny(n.Text, ".eEpP") && !strings.HasPrefix(n.Text, "0x") && !strings.HasPrefix(n.Text, "0X"):
		return reflect.ValueOf(n.Float64), nil
	case n.IsInt:
		i := int(n.Int64)
		if int64(i) != n.Int64 {
			return reflect.Value{}, st.errorf("%s overflows int", n.Text)
		}
		return reflect.ValueOf(i), nil
	case n.IsFloat:
		return reflect.ValueOf(n.Float64), nil
	}
	return reflect.Value{}, st.errorf("%s is not a number tmplexec takes", n.Text)
}

func (st *state) evalChain(dot reflect.Value, chain *parse.ChainNode, args []parse.Node, final reflect.Value) (reflect.Value, error) {
	if len(chain.Field) == 0 {
		return reflect.Value{}, st.errorf("internal error: no fields in evalChainNode")
	}
	if chain.Node.Type() == parse.NodeNil {
		return reflect.Value{}, st.errorf("indirection through explicit nil in %s", chain)
	}
	pipe, err := st.evalArg(dot, nil, chain.Node)
	if err != nil {
		return reflect.Value{}, err
	}
	return st.fieldChain(pipe, chain.Field, args, final)
}

func (st *state) evalVariable(dot reflect.Value, v *parse.VariableNode, args []parse.Node, final reflect.Value) (reflect.Value, error) {
	st.node = v
	val, err := st.varValue(v.Ident[0])
	if err != nil {
		return reflect.Value{}, err
	}
	if len(v.Ident) == 1 {
		return val, st.notAFunction(args, final)
	}
	return st.fieldChain(val, v.Ident[1:], args, final)
}

func (st *state) evalFieldChain(dot reflect.Value, n parse.Node, ident []string, args []parse.Node, final reflect.Value) (reflect.Value, error) {
	st.node = n
	return st.fieldChain(dot, ident, args, final)
}

func (st *state) fieldChain(receiver reflect.Value, ident []string, args []parse.Node, final reflect.Value) (reflect.Value, error) {
	for i, name := range ident {
		last := i == len(ident)-1
		if last && (len(args) > 1 || !isMissing(final)) {
			return reflect.Value{}, st.errorf("%s has arguments but is a field: tmplexec calls no methods; give the page a function instead", name)
		}
		var err error
		receiver, err = st.field(name, receiver)
		if err != nil {
			return reflect.Value{}, err
		}
	}
	return receiver, nil
}

// field is receiver's field or map entry name. Methods are not looked up
// (see the package doc): a page that names one gets an error.
func (st *state) field(name string, receiver reflect.Value) (reflect.Value, error) {
	if !receiver.IsValid() {
		return reflect.Value{}, nil
	}
	receiver, isNil := indirect(receiver)
	if receiver.Kind() == reflect.Interface && isNil {
		return reflect.Value{}, st.errorf("nil pointer evaluating %s.%s", receiver.Type(), name)
	}
	switch receiver.Kind() {
	case reflect.Struct:
		if f, ok := receiver.Type().FieldByName(name); ok {
			if !f.IsExported() {
				return reflect.Value{}, st.errorf("%s is an unexported field of struct type %s", name, receiver.Type())
			}
			v, err := receiver.FieldByIndexErr(f.Index)
			if err != nil {
				return reflect.Value{}, st.errorf("%v", err)
			}
			return v, nil
		}
	case reflect.Map:
		key := reflect.ValueOf(name)
		if key.Type().AssignableTo(receiver.Type().Key()) {
			return receiver.MapIndex(key), nil
		}
	case reflect.Pointer:
		if receiver.Type().Elem().Kind() == reflect.Struct {
			if _, ok := receiver.Type().Elem().FieldByName(name); ok {
				return reflect.Value{}, st.errorf("nil pointer evaluating %s.%s", receiver.Type(), name)
			}
		}
	}
	return reflect.Value{}, st.errorf("can't evaluate field %s in type %s (tmplexec reads fields and map keys, never methods)", name, receiver.Type())
}

func (st *state) evalFunction(dot reflect.Value, node *parse.IdentifierNode, args []parse.Node, final reflect.Value) (reflect.Value, error) {
	st.node = node
	name := node.Ident
	if name == "and" || name == "or" {
		return st.andOr(dot, name == "and", args, final)
	}
	fn, ok := st.set.funcs[name]
	if !ok {
		return reflect.Value{}, st.errorf("%q is not a defined function", name)
	}
	return st.call(dot, fn, name, args, final)
}

// andOr evaluates its arguments in order up to the first false (and) or
// true (or) one, which it returns, or the last.
func (st *state) andOr(dot reflect.Value, and bool, args []parse.Node, final reflect.Value) (reflect.Value, error) {
	args = args[1:]
	n := len(args)
	if !isMissing(final) {
		n++
	}
	if n < 1 {
		return reflect.Value{}, st.errorf("wrong number of args: got 0 want at least 1")
	}
	var v reflect.Value
	for i := range n {
		if i < len(args) {
			var err error
			if v, err = st.evalArg(dot, nil, args[i]); err != nil {
				return reflect.Value{}, err
			}
		} else {
			v = final
		}
		truth, _ := isTrue(indirectInterface(v))
		if truth != and {
			return v, nil
		}
	}
	return v, nil
}

func (st *state) call(dot reflect.Value, fn reflect.Value, name string, args []parse.Node, final reflect.Value) (reflect.Value, error) {
	args = args[1:] // the function's own name
	typ := fn.Type()
	numIn := len(args)
	if !isMissing(final) {
		numIn++
	}
	numFixed := len(args)
	if typ.IsVariadic() {
		numFixed = typ.NumIn() - 1
		if numIn < numFixed {
			return reflect.Value{}, st.errorf("wrong number of args for %s: want at least %d got %d", name, typ.NumIn()-1, len(args))
		}
	} else if numIn != typ.NumIn() {
		return reflect.Value{}, st.errorf("wrong number of args for %s: want %d got %d", name, typ.NumIn(), numIn)
	}
	argv := make([]reflect.Value, numIn)
	i := 0
	var err error
	for ; i < numFixed && i < len(args); i++ {
		if argv[i], err = st.evalArg(dot, typ.In(i), args[i]); err != nil {
			return reflect.Value{}, err
		}
	}
	if typ.IsVariadic() {
		elem := typ.In(typ.NumIn() - 1).Elem()
		for ; i < len(args); i++ {
			if argv[i], err = st.evalArg(dot, elem, args[i]); err != nil {
				return reflect.Value{}, err
			}
		}
	}
	if !isMissing(final) {
		t := typ.In(typ.NumIn() - 1)
		if typ.IsVariadic() {
			if numIn-1 < numFixed {
				t = typ.In(numIn - 1)
			} else {
				t = t.Elem()
			}
		}
		if argv[i], err = st.validate(final, t); err != nil {
			return reflect.Value{}, err
		}
	}
	out, err := safeCall(fn, argv)
	if err != nil {
		return reflect.Value{}, st.errorf("error calling %s: %w", name, err)
	}
	if out.IsValid() && out.Type() == valueType {
		out = out.Interface().(reflect.Value)
	}
	return out, nil
}

// safeCall calls fn, turning its error result or its panic into an error.
func safeCall(fn reflect.Value, args []reflect.Value) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	out := fn.Call(args)
	if len(out) == 2 && !out[1].IsNil() {
		return out[0], out[1].Interface().(error)
	}
	return out[0], nil
}

// validate makes v fit a parameter of type typ (nil for any), as
// text/template does.
func (st *state) validate(v reflect.Value, typ reflect.Type) (reflect.Value, error) {
	if !v.IsValid() {
		if typ == nil {
			return reflect.ValueOf(nil), nil
		}
		if canBeNil(typ) {
			return reflect.Zero(typ), nil
		}
		return reflect.Value{}, st.errorf("invalid value; expected %s", typ)
	}
	if typ == valueType && v.Type() != typ {
		return reflect.ValueOf(v), nil
	}
	if typ != nil && !v.Type().AssignableTo(typ) {
		if v.Kind() == reflect.Interface && !v.IsNil() {
			v = v.Elem()
			if v.Type().AssignableTo(typ) {
				return v, nil
			}
		}
		switch {
		case v.Kind() == reflect.Pointer && v.Type().Elem().AssignableTo(typ):
			v = v.Elem()
			if !v.IsValid() {
				return reflect.Value{}, st.errorf("dereference of nil pointer of type %s", typ)
			}
		case reflect.PointerTo(v.Type()).AssignableTo(typ) && v.CanAddr():
			v = v.Addr()
		default:
			return reflect.Value{}, st.errorf("wrong type for value; expected %s; got %s", typ, v.Type())
		}
	}
	return v, nil
}

// evalArg is node's value as a parameter of type typ (nil: any).
func (st *state) evalArg(dot reflect.Value, typ reflect.Type, n parse.Node) (reflect.Value, error) {
	st.node = n
	var v reflect.Value
	var err error
	switch arg := n.(type) {
	case *parse.DotNode:
		v = dot
	case *parse.NilNode:
		if typ != nil && canBeNil(typ) {
			return reflect.Zero(typ), nil
		}
		return reflect.Value{}, st.errorf("cannot assign nil to %s", typ)
	case *parse.FieldNode:
		v, err = st.evalFieldChain(dot, arg, arg.Ident, []parse.Node{n}, missing)
	case *parse.VariableNode:
		v, err = st.evalVariable(dot, arg, nil, missing)
	case *parse.PipeNode:
		v, err = st.evalPipeline(dot, arg)
	case *parse.IdentifierNode:
		v, err = st.evalFunction(dot, arg, []parse.Node{arg}, missing)
	case *parse.ChainNode:
		v, err = st.evalChain(dot, arg, nil, missing)
	default:
		return st.constant(typ, n)
	}
	if err != nil {
		return reflect.Value{}, err
	}
	return st.validate(v, typ)
}

// constant is a literal argument as a parameter of type typ (nil: any).
func (st *state) constant(typ reflect.Type, n parse.Node) (reflect.Value, error) {
	if typ == nil || typ == valueType || typ.Kind() == reflect.Interface && typ.NumMethod() == 0 {
		var v reflect.Value
		switch c := n.(type) {
		case *parse.BoolNode:
			v = reflect.ValueOf(c.True)
		case *parse.StringNode:
			v = reflect.ValueOf(c.Text)
		case *parse.NumberNode:
			var err error
			if v, err = st.idealConstant(c); err != nil {
				return reflect.Value{}, err
			}
		default:
			return reflect.Value{}, st.errorf("can't handle %s as an argument", n)
		}
		if typ == valueType {
			return reflect.ValueOf(v), nil
		}
		return v, nil
	}
	v := reflect.New(typ).Elem()
	switch c := n.(type) {
	case *parse.BoolNode:
		if typ.Kind() == reflect.Bool {
			v.SetBool(c.True)
			return v, nil
		}
	case *parse.StringNode:
		if typ.Kind() == reflect.String {
			v.SetString(c.Text)
			return v, nil
		}
	case *parse.NumberNode:
		switch typ.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if c.IsInt {
				v.SetInt(c.Int64)
				return v, nil
			}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if c.IsUint {
				v.SetUint(c.Uint64)
				return v, nil
			}
		case reflect.Float32, reflect.Float64:
			if c.IsFloat {
				v.SetFloat(c.Float64)
				return v, nil
			}
		}
	}
	return reflect.Value{}, st.errorf("expected %s; found %s", typ, n)
}

// print writes an action's value as text/template does.
func (st *state) print(n parse.Node, v reflect.Value) error {
	st.node = n
	if v.Kind() == reflect.Pointer {
		v, _ = indirect(v)
	}
	if !v.IsValid() {
		_, err := io.WriteString(st.w, "<no value>")
		return err
	}
	if !v.Type().Implements(errorType) && !v.Type().Implements(stringerType) {
		if v.CanAddr() && (reflect.PointerTo(v.Type()).Implements(errorType) || reflect.PointerTo(v.Type()).Implements(stringerType)) {
			v = v.Addr()
		} else if k := v.Kind(); k == reflect.Chan || k == reflect.Func {
			return st.errorf("can't print %s of type %s", n, v.Type())
		}
	}
	if s, ok := v.Interface().(string); ok {
		_, err := io.WriteString(st.w, s)
		return err
	}
	_, err := fmt.Fprint(st.w, v.Interface())
	return err
}

// isTrue is text/template's truth: not the zero value, not empty.
func isTrue(v reflect.Value) (truth, ok bool) {
	if !v.IsValid() {
		return false, true
	}
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() > 0, true
	case reflect.Bool:
		return v.Bool(), true
	case reflect.Complex64, reflect.Complex128:
		return v.Complex() != 0, true
	case reflect.Chan, reflect.Func, reflect.Pointer, reflect.Interface:
		return !v.IsNil(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() != 0, true
	case reflect.Float32, reflect.Float64:
		return v.Float() != 0, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() != 0, true
	case reflect.Struct:
		return true, true
	}
	return false, false
}

func canBeNil(typ reflect.Type) bool {
	switch typ.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice:
		return true
	case reflect.Struct:
		return typ == valueType
	}
	return false
}

// indirect follows pointers and interfaces to a value, or to a nil one.
func indirect(v reflect.Value) (rv reflect.Value, isNil bool) {
	for ; v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface; v = v.Elem() {
		if v.IsNil() {
			return v, true
		}
	}
	return v, false
}

// indirectInterface is the value inside an interface, if any.
func indirectInterface(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Interface || v.IsNil() {
		return v
	}
	return v.Elem()
}
