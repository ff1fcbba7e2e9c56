package tmplexec

import (
	"errors"
	"fmt"
	"reflect"
)

// builtins are text/template's predefined functions that pages use, but
// and and or, which the executor evaluates lazily itself.
func builtins() map[string]any {
	return map[string]any{
		"not":   func(v reflect.Value) bool { t, _ := isTrue(indirectInterface(v)); return !t },
		"len":   length,
		"index": index,
		"eq":    eq,
		"ne":    func(a, b reflect.Value) (bool, error) { e, err := eq(a, b); return !e, err },
		"lt":    lt,
		"le": func(a, b reflect.Value) (bool, error) {
			l, err := lt(a, b)
			if l || err != nil {
				return l, err
			}
			return eq(a, b)
		},
		"gt": func(a, b reflect.Value) (bool, error) {
			l, err := lt(a, b)
			if l || err != nil {
				return false, err
			}
			e, err := eq(a, b)
			return !e, err
		},
		"ge":      func(a, b reflect.Value) (bool, error) { l, err := lt(a, b); return !l, err },
		"print":   fmt.Sprint,
		"printf":  fmt.Sprintf,
		"println": fmt.Sprintln,
	}
}

func length(v reflect.Value) (int, error) {
	v, isNil := indirect(v)
	if isNil {
		return 0, errors.New("len of nil pointer")
	}
	switch v.Kind() {
	case reflect.Array, reflect.Chan, reflect.Map, reflect.Slice, reflect.String:
		return v.Len(), nil
	}
	return 0, fmt.Errorf("len of type %s", v.Type())
}

// index is item[i][j]...: map entries (the zero value when absent),
// slice, array and string elements.
func index(item reflect.Value, indexes ...reflect.Value) (reflect.Value, error) {
	item = indirectInterface(item)
	if !item.IsValid() {
		return reflect.Value{}, errors.New("index of untyped nil")
	}
	for _, ix := range indexes {
		ix = indirectInterface(ix)
		var isNil bool
		if item, isNil = indirect(item); isNil {
			return reflect.Value{}, errors.New("index of nil pointer")
		}
		switch item.Kind() {
		case reflect.Array, reflect.Slice, reflect.String:
			i, err := intIndex(ix, item.Len())
			if err != nil {
				return reflect.Value{}, err
			}
			item = item.Index(i)
		case reflect.Map:
			if !ix.IsValid() {
				return reflect.Value{}, errors.New("index of map with nil key")
			}
			if !ix.Type().AssignableTo(item.Type().Key()) {
				if !ix.Type().ConvertibleTo(item.Type().Key()) {
					return reflect.Value{}, fmt.Errorf("%s is not a key of %s", ix.Type(), item.Type())
				}
				ix = ix.Convert(item.Type().Key())
			}
			if x := item.MapIndex(ix); x.IsValid() {
				item = x
			} else {
				item = reflect.Zero(item.Type().Elem())
			}
		case reflect.Invalid:
			return reflect.Value{}, errors.New("index of nil")
		default:
			return reflect.Value{}, fmt.Errorf("can't index item of type %s", item.Type())
		}
	}
	return item, nil
}

func intIndex(ix reflect.Value, n int) (int, error) {
	var i int64
	switch ix.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i = ix.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		i = int64(ix.Uint())
	case reflect.Invalid:
		return 0, errors.New("cannot index slice/array with nil")
	default:
		return 0, fmt.Errorf("cannot index slice/array with type %s", ix.Type())
	}
	if i < 0 || int(i) >= n {
		return 0, fmt.Errorf("index out of range: %d", i)
	}
	return int(i), nil
}

type kind int

const (
	badKind kind = iota
	boolKind
	intKind
	uintKind
	floatKind
	stringKind
)

func basicKind(v reflect.Value) kind {
	switch v.Kind() {
	case reflect.Bool:
		return boolKind
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intKind
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintKind
	case reflect.Float32, reflect.Float64:
		return floatKind
	case reflect.String:
		return stringKind
	}
	return badKind
}

// eq is text/template's a == b: basic values by kind (signed and unsigned
// integers compare by value), other comparable values with ==, nil with
// nil.
func eq(a, b reflect.Value) (bool, error) {
	a, b = indirectInterface(a), indirectInterface(b)
	ka, kb := basicKind(a), basicKind(b)
	switch {
	case ka != badKind && ka == kb:
		switch ka {
		case boolKind:
			return a.Bool() == b.Bool(), nil
		case intKind:
			return a.Int() == b.Int(), nil
		case uintKind:
			return a.Uint() == b.Uint(), nil
		case floatKind:
			return a.Float() == b.Float(), nil
		case stringKind:
			return a.String() == b.String(), nil
		}
	case ka == intKind && kb == uintKind:
		return a.Int() >= 0 && uint64(a.Int()) == b.Uint(), nil
	case ka == uintKind && kb == intKind:
		return b.Int() >= 0 && a.Uint() == uint64(b.Int()), nil
	case !a.IsValid() || !b.IsValid():
		return !a.IsValid() && !b.IsValid() || a.IsValid() && canBeNil(a.Type()) && a.IsNil() || b.IsValid() && canBeNil(b.Type()) && b.IsNil(), nil
	case ka != badKind || kb != badKind:
		return false, errors.New("incompatible types for comparison")
	}
	if a.Type() != b.Type() || !a.Type().Comparable() {
		return false, fmt.Errorf("incompatible types for comparison: %s and %s", a.Type(), b.Type())
	}
	return a.Equal(b), nil
}

// lt is a < b for basic values of one kind.
func lt(a, b reflect.Value) (bool, error) {
	a, b = indirectInterface(a), indirectInterface(b)
	ka, kb := basicKind(a), basicKind(b)
	switch {
	case ka == badKind || kb == badKind || ka == boolKind:
		return false, errors.New("invalid type for comparison")
	case ka == intKind && kb == uintKind:
		return a.Int() < 0 || uint64(a.Int()) < b.Uint(), nil
	case ka == uintKind && kb == intKind:
		return b.Int() >= 0 && a.Uint() < uint64(b.Int()), nil
	case ka != kb:
		return false, errors.New("incompatible types for comparison")
	case ka == intKind:
		return a.Int() < b.Int(), nil
	case ka == uintKind:
		return a.Uint() < b.Uint(), nil
	case ka == floatKind:
		return a.Float() < b.Float(), nil
	}
	return a.String() < b.String(), nil
}
