package plist

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
	"unicode/utf16"
)

const binaryMagic = "bplist00"

// appleEpoch is the zero of binary plist dates (2001-01-01 UTC).
var appleEpoch = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)

// bdecoder decodes a binary property list (decode only: we never write
// them, but devices and usbmuxd pair records may use them).
type bdecoder struct {
	b         []byte
	offsets   []uint64
	refSize   int
	visiting  map[uint64]bool
	remaining int // objects still allowed to be produced (bounds blow-up through shared refs)
}

func unmarshalBinary(b []byte) (any, error) {
	if len(b) < len(binaryMagic)+32 {
		return nil, fmt.Errorf("%w: binary plist of %d bytes", ErrMalformed, len(b))
	}
	tr := b[len(b)-32:]
	offSize, refSize := int(tr[6]), int(tr[7])
	num := binary.BigEndian.Uint64(tr[8:])
	top := binary.BigEndian.Uint64(tr[16:])
	tableAt := binary.BigEndian.Uint64(tr[24:])
	if offSize < 1 || offSize > 8 || refSize < 1 || refSize > 8 {
		return nil, fmt.Errorf("%w: binary plist offset size %d, ref size %d", ErrMalformed, offSize, refSize)
	}
	body := uint64(len(b) - 32)
	if num == 0 || top >= num || tableAt < uint64(len(binaryMagic)) || tableAt > body || num > (body-tableAt)/uint64(offSize) {
		return nil, fmt.Errorf("%w: binary plist trailer (objects %d, top %d, table at %d)", ErrMalformed, num, top, tableAt)
	}
	d := &bdecoder{b: b[:tableAt], refSize: refSize, visiting: map[uint64]bool{}, remaining: 1 << 20}
	d.offsets = make([]uint64, num)
	for i := range d.offsets {
		d.offsets[i] = beUint(b[tableAt+uint64(i*offSize):][:offSize])
	}
	return d.object(top, 0)
}

func beUint(p []byte) uint64 {
	var n uint64
	for _, c := range p {
		n = n<<8 | uint64(c)
	}
	return n
}

func (d *bdecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: binary plist: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// span returns n bytes at off within the object area.
func (d *bdecoder) span(off, n uint64) ([]byte, error) {
	if off > uint64(len(d.b)) || n > uint64(len(d.b))-off {
		return nil, d.errorf("%d bytes at %d past the object area", n, off)
	}
	return d.b[off : off+n], nil
}

// length reads the count in a marker's low nibble, or the integer object
// after it when the nibble is 0xF; it returns the count and where the
// object's contents start.
func (d *bdecoder) length(off uint64, nibble byte) (uint64, uint64, error) {
	if nibble != 0xF {
		return uint64(nibble), off + 1, nil
	}
	p, err := d.span(off+1, 1)
	if err != nil {
		return 0, 0, err
	}
	if p[0]>>4 != 0x1 || p[0]&0xF > 3 {
		return 0, 0, d.errorf("length marker 0x%02x", p[0])
	}
	size := uint64(1) << (p[0] & 0xF)
	q, err := d.span(off+2, size)
	if err != nil {
		return 0, 0, err
	}
	return beUint(q), off + 2 + size, nil
}

func (d *bdecoder) object(ref uint64, depth int) (any, error) {
	if ref >= uint64(len(d.offsets)) {
		return nil, d.errorf("object ref %d of %d", ref, len(d.offsets))
	}
	if depth > maxDepth {
		return nil, d.errorf("nested deeper than %d", maxDepth)
	}
	if d.remaining--; d.remaining < 0 {
		return nil, d.errorf("too many objects")
	}
	if d.visiting[ref] {
		return nil, d.errorf("object %d contains itself", ref)
	}
	d.visiting[ref] = true
	defer delete(d.visiting, ref)
	off := d.offsets[ref]
	p, err := d.span(off, 1)
	if err != nil {
		return nil, err
	}
	marker, nibble := p[0]>>4, p[0]&0xF
	switch marker {
	case 0x0:
		switch p[0] {
		case 0x08:
			return false, nil
		case 0x09:
			return true, nil
		}
		return nil, d.errorf("marker 0x%02x", p[0])
	case 0x1:
		if nibble > 3 {
			return nil, d.errorf("integer of 2^%d bytes", nibble)
		}
		q, err := d.span(off+1, 1<<nibble)
		if err != nil {
			return nil, err
		}
		n := beUint(q)
		if nibble == 3 && int64(n) < 0 {
			return int64(n), nil
		}
		return n, nil
	case 0x2:
		switch nibble {
		case 2:
			q, err := d.span(off+1, 4)
			if err != nil {
				return nil, err
			}
			return float64(math.Float32frombits(binary.BigEndian.Uint32(q))), nil
		case 3:
			q, err := d.span(off+1, 8)
			if err != nil {
				return nil, err
			}
			return math.Float64frombits(binary.BigEndian.Uint64(q)), nil
		}
		return nil, d.errorf("real of 2^%d bytes", nibble)
	case 0x3:
		q, err := d.span(off+1, 8)
		if err != nil || p[0] != 0x33 {
			return nil, d.errorf("date marker 0x%02x", p[0])
		}
		secs := math.Float64frombits(binary.BigEndian.Uint64(q))
		if math.IsNaN(secs) || math.Abs(secs) > 1e11 {
			return nil, d.errorf("date %v", secs)
		}
		return appleEpoch.Add(time.Duration(secs * float64(time.Second))), nil
	case 0x4, 0x5, 0x6:
		n, at, err := d.length(off, nibble)
		if err != nil {
			return nil, err
		}
		if marker == 0x6 {
			if n > uint64(len(d.b)) {
				return nil, d.errorf("string of %d UTF-16 units", n)
			}
			q, err := d.span(at, 2*n)
			if err != nil {
				return nil, err
			}
			u := make([]uint16, n)
			for i := range u {
				u[i] = binary.BigEndian.Uint16(q[2*i:])
			}
			return string(utf16.Decode(u)), nil
		}
		q, err := d.span(at, n)
		if err != nil {
			return nil, err
		}
		if marker == 0x4 {
			return append([]byte{}, q...), nil
		}
		return string(q), nil
	case 0x8:
		q, err := d.span(off+1, uint64(nibble)+1)
		if err != nil {
			return nil, err
		}
		return beUint(q), nil // a UID; only keyed archives use them
	case 0xA, 0xD:
		n, at, err := d.length(off, nibble)
		if err != nil {
			return nil, err
		}
		refs := n
		if marker == 0xD {
			refs = 2 * n
		}
		if n > uint64(len(d.b)) {
			return nil, d.errorf("container of %d entries", n)
		}
		q, err := d.span(at, refs*uint64(d.refSize))
		if err != nil {
			return nil, err
		}
		ref := func(i uint64) uint64 { return beUint(q[i*uint64(d.refSize):][:d.refSize]) }
		if marker == 0xA {
			a := make([]any, 0, n)
			for i := uint64(0); i < n; i++ {
				v, err := d.object(ref(i), depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			return a, nil
		}
		m := make(Dict, 0, n)
		for i := uint64(0); i < n; i++ {
			k, err := d.object(ref(i), depth+1)
			if err != nil {
				return nil, err
			}
			key, ok := k.(string)
			if !ok {
				return nil, d.errorf("dictionary key of type %T", k)
			}
			v, err := d.object(ref(n+i), depth+1)
			if err != nil {
				return nil, err
			}
			m = append(m, Entry{key, v})
		}
		return m, nil
	}
	return nil, d.errorf("marker 0x%02x", p[0])
}
