package sim

import (
	"fmt"
	"slices"

	"github.com/openlolo/openlolo/hw/hid"
)

// function is one HID function as the simulated USB host sees it: the
// parsed report descriptor, the ranges of its absolute axes, and what its
// last report held, so the host can tell presses from holds.
type function struct {
	kind hid.Kind
	desc *hid.Descriptor
	// axes are the logical ranges of absolute X and Y, read from the
	// descriptor (as a host does), indexed 0 for X and 1 for Y.
	axes  [2]axis
	keys  []uint16 // keyboard usages down in the last report
	cons  []uint16 // consumer usages down in the last report
	x, y  float64  // pointer position, pixels
	count int      // reports decoded
}

// axis is the logical range of one absolute axis.
type axis struct {
	min, max int32
	ok       bool
}

// newFunction parses f's report descriptor the way a USB host does at
// enumeration.
func newFunction(f hid.Function) (*function, error) {
	d, err := hid.Parse(f.Descriptor)
	if err != nil {
		return nil, fmt.Errorf("sim: enumerate %s: %w", f.Name, err)
	}
	fn := &function{kind: f.Kind, desc: d}
	for _, fl := range d.Fields {
		if fl.Type != hid.Input || !fl.Variable() || fl.Relative() || fl.Constant() {
			continue
		}
		for _, u := range fl.Usages {
			if uint16(u>>16) != hid.PageGenericDesktop {
				continue
			}
			switch uint16(u) {
			case hid.UsageX:
				fn.axes[0] = axis{min: fl.LogicalMin, max: fl.LogicalMax, ok: fl.LogicalMax > fl.LogicalMin}
			case hid.UsageY:
				fn.axes[1] = axis{min: fl.LogicalMin, max: fl.LogicalMax, ok: fl.LogicalMax > fl.LogicalMin}
			}
		}
	}
	return fn, nil
}

// action is what one report means to the phone, in the order it applies:
// newly pressed keys with the modifiers held, newly pressed consumer
// usages, and the pointer.
type action struct {
	keys    []uint8
	mods    uint8
	cons    []uint16
	pointer bool // the report moves or presses the pointer
	x, y    float64
	down    bool
}

// decode turns one report into an action, advancing the function's state.
// size is the screen in pixels; rel is pixels per relative count.
func (fn *function) decode(report []byte, w, h int, rel float64) (action, error) {
	d, err := fn.desc.Decode(report)
	if err != nil {
		return action{}, fmt.Errorf("sim: decode %s report % x: %w", fn.kind, report, err)
	}
	fn.count++
	var in action
	var keys []uint16
	for _, u := range d.Pressed(hid.PageKeyboard) {
		switch {
		case u >= 0xE0 && u <= 0xE7:
			in.mods |= 1 << (u - 0xE0)
		case u > 0x03 && u <= 0xFF: // 1..3 are the error usages
			keys = append(keys, u)
		}
	}
	for _, u := range keys {
		if !slices.Contains(fn.keys, u) {
			in.keys = append(in.keys, uint8(u))
		}
	}
	fn.keys = keys
	cons := d.Pressed(hid.PageConsumer)
	for _, u := range cons {
		if !slices.Contains(fn.cons, u) {
			in.cons = append(in.cons, u)
		}
	}
	fn.cons = cons

	moved := false
	for _, c := range d.Controls {
		if c.Page != hid.PageGenericDesktop || (c.Usage != hid.UsageX && c.Usage != hid.UsageY) {
			continue
		}
		moved = true
		dim, size, pos := 0, w, &fn.x
		if c.Usage == hid.UsageY {
			dim, size, pos = 1, h, &fn.y
		}
		if c.Relative {
			*pos += float64(c.Value) * rel
		} else if a := fn.axes[dim]; a.ok {
			*pos = float64(c.Value-a.min) / float64(a.max-a.min) * float64(size)
		}
		*pos = min(max(*pos, 0), float64(size-1))
	}
	_, hasButtons := d.Value(hid.PageButton, 1)
	tip, hasTip := d.Value(hid.PageDigitizer, hid.UsageTipSwitch)
	if moved || hasButtons || hasTip {
		in.pointer = true
		in.x, in.y = fn.x, fn.y
		in.down = slices.Contains(d.Pressed(hid.PageButton), 1) || (hasTip && tip != 0)
	}
	return in, nil
}
