package hid

import "fmt"

// Control is one decoded element of a report.
type Control struct {
	// Page and Usage name the control.
	Page, Usage uint16
	// Value is the element's value, sign-extended when the field's
	// Logical Minimum is negative. For array entries it is 1.
	Value int32
	// Bits is the size of the field's elements.
	Bits int
	// Array is true for a usage named by an array field (a key or
	// consumer button that is down).
	Array bool
	// Relative is true when Value is a change (mouse motion, wheel).
	Relative bool
}

// Decoded is one input report turned back into controls.
type Decoded struct {
	ReportID uint8
	// Controls are the report's data elements in report order: every
	// element of variable fields (with a usage), and the usage of every
	// array element whose value lies in the logical range and names a
	// usage other than 0 ("no event"). Constant fields are left out.
	Controls []Control
}

// Value returns the value of the first variable control with this usage;
// ok is false when the report has none.
func (d Decoded) Value(page, usage uint16) (v int32, ok bool) {
	for _, c := range d.Controls {
		if !c.Array && c.Page == page && c.Usage == usage {
			return c.Value, true
		}
	}
	return 0, false
}

// Pressed returns, in report order, the usages on page that are down:
// array entries (keys, consumer buttons) and 1-bit variable controls that
// are set (modifier keys, mouse buttons, tip switch).
func (d Decoded) Pressed(page uint16) []uint16 {
	var us []uint16
	for _, c := range d.Controls {
		if c.Page != page {
			continue
		}
		if c.Array || (c.Bits == 1 && c.Value != 0) {
			us = append(us, c.Usage)
		}
	}
	return us
}

// Decode splits an input report into controls. With report IDs the first
// byte selects the report. The report must have exactly the length the
// descriptor declares for it. Errors wrap [ErrReport].
func (d *Descriptor) Decode(report []byte) (Decoded, error) {
	if len(report) == 0 {
		return Decoded{}, fmt.Errorf("%w: the report is empty", ErrReport)
	}
	var id uint8
	data := report
	if d.UsesReportIDs {
		id, data = report[0], report[1:]
	}
	want, ok := d.ReportLength(Input, id)
	if !ok {
		if d.UsesReportIDs {
			return Decoded{}, fmt.Errorf("%w: the descriptor declares no input report with ID %d", ErrReport, id)
		}
		return Decoded{}, fmt.Errorf("%w: the descriptor declares no input report", ErrReport)
	}
	if len(report) != want {
		return Decoded{}, fmt.Errorf("%w: input report %d is %d bytes long, the descriptor declares %d", ErrReport, id, len(report), want)
	}
	out := Decoded{ReportID: id}
	for _, f := range d.Fields {
		if f.Type != Input || f.ReportID != id || f.Constant() || f.Size == 0 {
			continue
		}
		for i := range f.Count {
			v := extract(data, f.BitOffset+i*f.Size, f.Size, f.LogicalMin < 0)
			if f.Variable() {
				u, ok := f.usage(i)
				if !ok {
					continue
				}
				out.Controls = append(out.Controls, Control{
					Page: uint16(u >> 16), Usage: uint16(u), Value: v,
					Bits: f.Size, Relative: f.Relative(),
				})
				continue
			}
			if v < f.LogicalMin || v > f.LogicalMax {
				continue // out of range: no usage in this slot
			}
			idx := int64(v) - int64(f.LogicalMin)
			if idx >= int64(len(f.Usages)) {
				continue
			}
			u := f.Usages[idx]
			if uint16(u) == 0 {
				continue // usage 0 is "no event" / unassigned
			}
			out.Controls = append(out.Controls, Control{
				Page: uint16(u >> 16), Usage: uint16(u), Value: 1,
				Bits: f.Size, Array: true, Relative: f.Relative(),
			})
		}
	}
	return out, nil
}

// extract reads size bits (at most 32) at bit offset off, little-endian,
// and sign-extends them when signed is true.
func extract(data []byte, off, size int, signed bool) int32 {
	var v uint32
	for j := range size {
		b := off + j
		v |= uint32(data[b/8]>>(b%8)&1) << j
	}
	if signed && size < 32 && v&(1<<(size-1)) != 0 {
		v |= ^uint32(0) << size
	}
	return int32(v)
}
