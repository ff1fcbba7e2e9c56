package api

import (
	"fmt"
	"math"
	"strconv"
)

// Errorf returns an Error with code, the code's guidance ([Code.Guide])
// and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	r, steps := code.Guide()
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Retryable: r, NextSteps: steps}
}

// Invalid is an INVALID_ARGUMENTS error.
func Invalid(format string, args ...any) *Error {
	return Errorf(CodeInvalidArguments, format, args...)
}

// Number checks tool's number argument name against [BoundOf]: nil takes
// the default (or is refused as required when there is none); NaN,
// infinities and values out of range are refused.
func Number(tool Tool, name string, v *float64) (float64, *Error) {
	b, _ := BoundOf(tool, name)
	if v == nil {
		d, ok := b.Default.(float64)
		if !ok {
			return 0, Invalid("argument %q is required", name)
		}
		return d, nil
	}
	if math.IsNaN(*v) || math.IsInf(*v, 0) || (b.Ranged && (*v < b.Min || *v > b.Max)) {
		return 0, Invalid("argument %q must be between %g and %g, not %g", name, b.Min, b.Max, *v)
	}
	return *v, nil
}

// Integer checks tool's integer argument name against [BoundOf] as
// [Number] does.
func Integer(tool Tool, name string, v *int) (int, *Error) {
	b, _ := BoundOf(tool, name)
	if v == nil {
		d, ok := b.Default.(int)
		if !ok {
			return 0, Invalid("argument %q is required", name)
		}
		return d, nil
	}
	if b.Ranged && (float64(*v) < b.Min || float64(*v) > b.Max) {
		return 0, Invalid("%s must be between %g and %g, not %d", name, b.Min, b.Max, *v)
	}
	return *v, nil
}

// Length checks the length of tool's string argument name against
// [BoundOf]'s MaxLen.
func Length(tool Tool, name, v string) *Error {
	if b, _ := BoundOf(tool, name); b.MaxLen > 0 && len(v) > b.MaxLen {
		return Invalid("%s is longer than %d characters", name, b.MaxLen)
	}
	return nil
}

// Bool is a boolean argument or its default.
func Bool(tool Tool, name string, v *bool) bool {
	if v != nil {
		return *v
	}
	b, _ := BoundOf(tool, name)
	d, _ := b.Default.(bool)
	return d
}

// Clip shortens s for quoting in an error message.
func Clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// FormatEpoch writes a geometry epoch as the wire carries it.
func FormatEpoch(e uint64) string { return strconv.FormatUint(e, 10) }
