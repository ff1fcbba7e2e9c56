package hid

import (
	"fmt"
	"math"
)

// Limits that keep a hostile descriptor from costing unbounded memory.
const (
	// MaxUsages is the most usages one Main item may carry (ranges
	// expanded).
	MaxUsages = 4096
	// MaxReportBytes is the longest report a descriptor may declare.
	MaxReportBytes = 4096
	// maxDepth bounds collection nesting and the Push stack.
	maxDepth = 64
)

// Item types and tags (HID 1.11 §6.2.2).
const (
	typeMain   = 0
	typeGlobal = 1
	typeLocal  = 2

	tagInput         = 0x8
	tagOutput        = 0x9
	tagCollection    = 0xa
	tagFeature       = 0xb
	tagEndCollection = 0xc

	tagUsagePage    = 0x0
	tagLogicalMin   = 0x1
	tagLogicalMax   = 0x2
	tagPhysicalMin  = 0x3
	tagPhysicalMax  = 0x4
	tagUnitExponent = 0x5
	tagUnit         = 0x6
	tagReportSize   = 0x7
	tagReportID     = 0x8
	tagReportCount  = 0x9
	tagPush         = 0xa
	tagPop          = 0xb

	tagUsage    = 0x0
	tagUsageMin = 0x1
	tagUsageMax = 0x2

	longItemPrefix = 0xfe
	collectionApp  = 0x01
)

// globals is the Global item state that Push and Pop save and restore.
type globals struct {
	page uint16
	// Logical and physical bounds keep their raw bytes: whether the
	// maximum is signed depends on the minimum (as in Linux hid-core),
	// decided when a Main item uses them.
	logMin, logMax, physMin, physMax raw
	unitExp                          int8
	unit                             uint32
	size, count                      int
	id                               uint8
}

// raw is an item's data with its size in bytes.
type raw struct {
	v uint32
	n int
}

func (r raw) signed() int32 {
	switch r.n {
	case 1:
		return int32(int8(r.v))
	case 2:
		return int32(int16(r.v))
	}
	return int32(r.v)
}

func (r raw) unsigned() int32 { return int32(r.v) }

// bounds resolves a minimum and maximum: the minimum is signed; the
// maximum is signed only when the minimum is negative.
func bounds(lo, hi raw) (int32, int32) {
	mn := lo.signed()
	if mn < 0 {
		return mn, hi.signed()
	}
	return mn, hi.unsigned()
}

// localUsage is a Usage item before its page is known: ext is true for a
// 4-byte (extended) usage that carries its own page.
type localUsage struct {
	v   uint32
	ext bool
}

type parser struct {
	d           *Descriptor
	g           globals
	stack       []globals
	usages      []localUsage
	usageMin    *localUsage
	collections []uint32 // usage of each open collection
	app         []uint32 // application usage in effect per depth
	idZero      bool     // a Main item came before any Report ID
}

// Parse reads a HID report descriptor: its short items (Main: Input,
// Output, Feature, Collection, End Collection; Global: Usage Page, Logical
// and Physical Minimum/Maximum, Unit Exponent, Unit, Report Size, Report
// ID, Report Count, Push, Pop; Local: Usage, Usage Minimum/Maximum with
// extended 32-bit usages; designator, string and delimiter items are
// accepted and ignored), and long items, which it skips. Errors wrap
// [ErrDescriptor] and give the byte offset of the offending item.
func Parse(desc []byte) (*Descriptor, error) {
	if len(desc) == 0 {
		return nil, fmt.Errorf("%w: the descriptor is empty", ErrDescriptor)
	}
	p := &parser{d: &Descriptor{bits: map[reportKey]int{}}}
	for off := 0; off < len(desc); {
		prefix := desc[off]
		if prefix == longItemPrefix {
			if off+3 > len(desc) {
				return nil, fmt.Errorf("%w: truncated long item at byte %d", ErrDescriptor, off)
			}
			n := int(desc[off+1])
			if off+3+n > len(desc) {
				return nil, fmt.Errorf("%w: truncated long item at byte %d: it needs %d data bytes, %d are left", ErrDescriptor, off, n, len(desc)-off-3)
			}
			off += 3 + n
			continue
		}
		size := int(prefix & 0x3)
		if size == 3 {
			size = 4
		}
		if off+1+size > len(desc) {
			return nil, fmt.Errorf("%w: truncated item 0x%02x at byte %d: it needs %d data bytes, %d are left", ErrDescriptor, prefix, off, size, len(desc)-off-1)
		}
		var v uint32
		for i := range size {
			v |= uint32(desc[off+1+i]) << (8 * i)
		}
		data := raw{v: v, n: size}
		var err error
		switch typ, tag := (prefix>>2)&0x3, prefix>>4; typ {
		case typeMain:
			err = p.main(tag, data)
		case typeGlobal:
			err = p.global(tag, data)
		case typeLocal:
			err = p.local(tag, data)
		default:
			err = fmt.Errorf("reserved item type in prefix 0x%02x", prefix)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: item 0x%02x at byte %d: %v", ErrDescriptor, prefix, off, err)
		}
		off += 1 + size
	}
	if n := len(p.collections); n > 0 {
		return nil, fmt.Errorf("%w: %d collection(s) not closed at the end (unbalanced Collection/End Collection)", ErrDescriptor, n)
	}
	if p.d.UsesReportIDs && p.idZero {
		return nil, fmt.Errorf("%w: a Main item comes before the first Report ID, but the descriptor uses report IDs", ErrDescriptor)
	}
	return p.d, nil
}

func (p *parser) main(tag uint8, data raw) error {
	defer p.clearLocals()
	switch tag {
	case tagInput:
		return p.field(Input, data)
	case tagOutput:
		return p.field(Output, data)
	case tagFeature:
		return p.field(Feature, data)
	case tagCollection:
		if len(p.collections) == maxDepth {
			return fmt.Errorf("collections nest deeper than %d", maxDepth)
		}
		us, err := p.resolve()
		if err != nil {
			return err
		}
		var u uint32
		if len(us) > 0 {
			u = us[0]
		}
		app := p.application()
		if data.v == collectionApp {
			app = u
		}
		p.collections = append(p.collections, u)
		p.app = append(p.app, app)
		return nil
	case tagEndCollection:
		if len(p.collections) == 0 {
			return fmt.Errorf("an End Collection without an open Collection (unbalanced collections)")
		}
		p.collections = p.collections[:len(p.collections)-1]
		p.app = p.app[:len(p.app)-1]
		return nil
	}
	return fmt.Errorf("unknown Main item tag 0x%x", tag)
}

func (p *parser) application() uint32 {
	if len(p.app) == 0 {
		return 0
	}
	return p.app[len(p.app)-1]
}

func (p *parser) clearLocals() {
	p.usages = p.usages[:0]
	p.usageMin = nil
}

// resolve completes the local usages with the current usage page.
func (p *parser) resolve() ([]uint32, error) {
	if p.usageMin != nil {
		return nil, fmt.Errorf("a Usage Minimum 0x%x without a Usage Maximum", p.usageMin.v)
	}
	us := make([]uint32, len(p.usages))
	for i, u := range p.usages {
		if u.ext {
			us[i] = u.v
		} else {
			us[i] = uint32(p.g.page)<<16 | u.v&0xffff
		}
	}
	return us, nil
}

func (p *parser) field(t ReportType, data raw) error {
	g := p.g
	f := Field{
		Type:         t,
		ReportID:     g.id,
		Application:  p.application(),
		Flags:        Flags(data.v & 0x1ff),
		Size:         g.size,
		Count:        g.count,
		UnitExponent: g.unitExp,
		Unit:         g.unit,
	}
	f.LogicalMin, f.LogicalMax = bounds(g.logMin, g.logMax)
	f.PhysicalMin, f.PhysicalMax = bounds(g.physMin, g.physMax)
	us, err := p.resolve()
	if err != nil {
		return err
	}
	f.Usages = us
	if !f.Constant() {
		if f.Size > 32 {
			return fmt.Errorf("%s field of %d-bit elements: data elements may be at most 32 bits", t, f.Size)
		}
		if f.LogicalMin > f.LogicalMax {
			return fmt.Errorf("%s field: Logical Minimum %d is greater than Logical Maximum %d", t, f.LogicalMin, f.LogicalMax)
		}
	}
	if g.id == 0 {
		p.idZero = true
	}
	k := reportKey{t, g.id}
	f.BitOffset = p.d.bits[k]
	end := f.BitOffset + f.Size*f.Count
	if end > MaxReportBytes*8 {
		return fmt.Errorf("%s report %d grows to %d bits, more than %d bytes", t, g.id, end, MaxReportBytes)
	}
	p.d.bits[k] = end
	p.d.Fields = append(p.d.Fields, f)
	return nil
}

func (p *parser) global(tag uint8, data raw) error {
	switch tag {
	case tagUsagePage:
		if data.v > math.MaxUint16 {
			return fmt.Errorf("the Usage Page 0x%x does not fit 16 bits", data.v)
		}
		p.g.page = uint16(data.v)
	case tagLogicalMin:
		p.g.logMin = data
	case tagLogicalMax:
		p.g.logMax = data
	case tagPhysicalMin:
		p.g.physMin = data
	case tagPhysicalMax:
		p.g.physMax = data
	case tagUnitExponent:
		// HID 1.11 stores the exponent as a signed nibble; some
		// descriptors write a signed byte. Accept both, as Linux does.
		if data.v <= 0xf {
			p.g.unitExp = int8(data.v<<4) >> 4
		} else {
			p.g.unitExp = int8(data.signed())
		}
	case tagUnit:
		p.g.unit = data.v
	case tagReportSize:
		if data.v > MaxReportBytes*8 {
			return fmt.Errorf("the Report Size %d is larger than a report may be", data.v)
		}
		p.g.size = int(data.v)
	case tagReportID:
		if data.v == 0 || data.v > math.MaxUint8 {
			return fmt.Errorf("the Report ID %d is outside 1..255", data.v)
		}
		p.g.id = uint8(data.v)
		p.d.UsesReportIDs = true
	case tagReportCount:
		if data.v > MaxUsages {
			return fmt.Errorf("the Report Count %d is larger than %d", data.v, MaxUsages)
		}
		p.g.count = int(data.v)
	case tagPush:
		if len(p.stack) == maxDepth {
			return fmt.Errorf("a Push nests deeper than %d", maxDepth)
		}
		p.stack = append(p.stack, p.g)
	case tagPop:
		if len(p.stack) == 0 {
			return fmt.Errorf("a Pop without a matching Push")
		}
		p.g = p.stack[len(p.stack)-1]
		p.stack = p.stack[:len(p.stack)-1]
	default:
		return fmt.Errorf("unknown Global item tag 0x%x", tag)
	}
	return nil
}

func (p *parser) local(tag uint8, data raw) error {
	u := localUsage{v: data.v, ext: data.n == 4}
	switch tag {
	case tagUsage:
		if len(p.usages) >= MaxUsages {
			return fmt.Errorf("more than %d usages before one Main item", MaxUsages)
		}
		p.usages = append(p.usages, u)
	case tagUsageMin:
		if p.usageMin != nil {
			return fmt.Errorf("two Usage Minimum items in a row")
		}
		p.usageMin = &u
	case tagUsageMax:
		lo := p.usageMin
		if lo == nil {
			return fmt.Errorf("a Usage Maximum 0x%x without a Usage Minimum", u.v)
		}
		p.usageMin = nil
		if lo.ext != u.ext || (lo.ext && lo.v>>16 != u.v>>16) {
			return fmt.Errorf("the Usage Minimum 0x%x and Maximum 0x%x are on different pages", lo.v, u.v)
		}
		if u.v < lo.v {
			return fmt.Errorf("the Usage Maximum 0x%x is below Usage Minimum 0x%x", u.v, lo.v)
		}
		if uint64(u.v-lo.v)+1+uint64(len(p.usages)) > MaxUsages {
			return fmt.Errorf("usage range 0x%x..0x%x makes more than %d usages", lo.v, u.v, MaxUsages)
		}
		for v := lo.v; ; v++ {
			p.usages = append(p.usages, localUsage{v: v, ext: u.ext})
			if v == u.v {
				break
			}
		}
	default:
		// Designator, string and delimiter items name no data.
	}
	return nil
}
