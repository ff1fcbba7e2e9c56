package hid

import (
	"errors"
	"slices"
)

// ErrDescriptor is wrapped by every error [Parse] returns.
var ErrDescriptor = errors.New("hid: bad report descriptor")

// ErrReport is wrapped by every error [Descriptor.Decode] returns.
var ErrReport = errors.New("hid: bad report")

// ReportType says which Main item a field comes from.
type ReportType uint8

// Report types.
const (
	Input ReportType = iota + 1
	Output
	Feature
)

// String returns "input", "output" or "feature".
func (t ReportType) String() string {
	switch t {
	case Input:
		return "input"
	case Output:
		return "output"
	case Feature:
		return "feature"
	}
	return "report type ?"
}

// Flags are the data bits of an Input, Output or Feature item.
type Flags uint16

// Flag bits (HID 1.11 §6.2.2.5); a zero bit means the opposite (Data,
// Array, Absolute, …).
const (
	FlagConstant Flags = 1 << iota
	FlagVariable
	FlagRelative
	FlagWrap
	FlagNonLinear
	FlagNoPreferred
	FlagNullState
	FlagVolatile
	FlagBufferedBytes
)

// Field is one Input, Output or Feature item: Count elements of Size bits
// each, starting BitOffset bits into the report's data (after the report
// ID byte, when the descriptor uses IDs).
type Field struct {
	Type     ReportType
	ReportID uint8
	// Application is the extended usage (page<<16 | id) of the
	// application collection the field is in; 0 outside any.
	Application uint32
	Flags       Flags
	BitOffset   int
	Size, Count int
	// LogicalMin and LogicalMax bound the values; a negative LogicalMin
	// makes values signed (two's complement in Size bits).
	LogicalMin, LogicalMax   int32
	PhysicalMin, PhysicalMax int32
	UnitExponent             int8
	Unit                     uint32
	// Usages are the field's extended usages (page<<16 | id) in order,
	// with usage ranges expanded. A variable field's element i has usage
	// Usages[i] (the last one repeats when there are fewer usages than
	// elements); an array element holding value v names Usages[v-LogicalMin].
	Usages []uint32
}

// Constant reports whether the field is padding or constant data.
func (f Field) Constant() bool { return f.Flags&FlagConstant != 0 }

// Variable reports whether each element is a value of its own usage
// (false: the elements are an array of usage indexes).
func (f Field) Variable() bool { return f.Flags&FlagVariable != 0 }

// Relative reports whether values are changes rather than positions.
func (f Field) Relative() bool { return f.Flags&FlagRelative != 0 }

// usage returns the extended usage of variable element i.
func (f Field) usage(i int) (uint32, bool) {
	if len(f.Usages) == 0 {
		return 0, false
	}
	return f.Usages[min(i, len(f.Usages)-1)], true
}

type reportKey struct {
	typ ReportType
	id  uint8
}

// Descriptor is a parsed report descriptor.
type Descriptor struct {
	// Fields are every Input, Output and Feature item in descriptor
	// order, constants included.
	Fields []Field
	// UsesReportIDs is true when the descriptor declares report IDs:
	// every report then starts with its ID byte.
	UsesReportIDs bool

	bits map[reportKey]int // data bits per report
}

// ReportLength returns the byte length of report (t, id) on the wire,
// the ID byte included; ok is false when the descriptor declares no such
// report. Without report IDs, id must be 0.
func (d *Descriptor) ReportLength(t ReportType, id uint8) (n int, ok bool) {
	bits, ok := d.bits[reportKey{t, id}]
	if !ok {
		return 0, false
	}
	n = (bits + 7) / 8
	if d.UsesReportIDs {
		n++
	}
	return n, true
}

// ReportIDs returns the IDs of the reports of type t, ascending ({0}
// without report IDs, when such a report exists).
func (d *Descriptor) ReportIDs(t ReportType) []uint8 {
	var ids []uint8
	for k := range d.bits {
		if k.typ == t {
			ids = append(ids, k.id)
		}
	}
	slices.Sort(ids)
	return ids
}

// MaxReportLength returns the byte length of the longest report of type
// t (0 when there is none). For Input it is what a gadget's
// report_length must be.
func (d *Descriptor) MaxReportLength(t ReportType) int {
	n := 0
	for _, id := range d.ReportIDs(t) {
		l, _ := d.ReportLength(t, id)
		n = max(n, l)
	}
	return n
}
