package plist

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"
)

// MarshalBinary encodes v as a binary property list ("bplist00"), which
// some CoreDevice inputs carry as data (the DisplayService negotiator
// offer). It takes the same values as [Marshal] except time.Time.
// Objects are written once each, depth first, with the smallest offset
// and reference sizes that fit.
func MarshalBinary(v any) ([]byte, error) {
	var objs [][]byte
	// Flatten: every object gets an index; containers refer to them.
	type pending struct {
		idx  int
		refs []int
		kind byte // 0xA array, 0xD dict
	}
	var fixups []pending
	var add func(v any, depth int) (int, error)
	add = func(v any, depth int) (int, error) {
		if depth > maxDepth {
			return 0, fmt.Errorf("plist: value nested deeper than %d", maxDepth)
		}
		idx := len(objs)
		objs = append(objs, nil)
		switch x := v.(type) {
		case Dict:
			refs := make([]int, 0, 2*len(x))
			keys := make([]int, len(x))
			for i, e := range x {
				k, err := add(e.Key, depth+1)
				if err != nil {
					return 0, err
				}
				keys[i] = k
			}
			refs = append(refs, keys...)
			for _, e := range x {
				r, err := add(e.Value, depth+1)
				if err != nil {
					return 0, err
				}
				refs = append(refs, r)
			}
			fixups = append(fixups, pending{idx, refs, 0xD})
		case map[string]any:
			return 0, fmt.Errorf("plist: binary encoding takes Dict, not map[string]any")
		case []any:
			refs := make([]int, len(x))
			for i, e := range x {
				r, err := add(e, depth+1)
				if err != nil {
					return 0, err
				}
				refs[i] = r
			}
			fixups = append(fixups, pending{idx, refs, 0xA})
		default:
			b, err := binaryScalar(v)
			if err != nil {
				return 0, err
			}
			objs[idx] = b
		}
		return idx, nil
	}
	if _, err := add(v, 0); err != nil {
		return nil, err
	}
	refSize := sizeFor(uint64(len(objs)))
	for _, f := range fixups {
		n := len(f.refs)
		if f.kind == 0xD {
			n /= 2
		}
		b := lengthHeader(f.kind, uint64(n))
		for _, r := range f.refs {
			b = appendBE(b, uint64(r), refSize)
		}
		objs[f.idx] = b
	}
	out := []byte(binaryMagic)
	offsets := make([]uint64, len(objs))
	for i, o := range objs {
		offsets[i] = uint64(len(out))
		out = append(out, o...)
	}
	tableAt := uint64(len(out))
	offSize := sizeFor(tableAt)
	for _, off := range offsets {
		out = appendBE(out, off, offSize)
	}
	var tr [32]byte
	tr[6], tr[7] = byte(offSize), byte(refSize)
	binary.BigEndian.PutUint64(tr[8:], uint64(len(objs)))
	binary.BigEndian.PutUint64(tr[16:], 0)
	binary.BigEndian.PutUint64(tr[24:], tableAt)
	return append(out, tr[:]...), nil
}

func binaryScalar(v any) ([]byte, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return []byte{0x09}, nil
		}
		return []byte{0x08}, nil
	case string:
		ascii := true
		for i := 0; i < len(x); i++ {
			if x[i] >= 0x80 {
				ascii = false
				break
			}
		}
		if ascii {
			return append(lengthHeader(0x5, uint64(len(x))), x...), nil
		}
		u := utf16.Encode([]rune(x))
		b := lengthHeader(0x6, uint64(len(u)))
		for _, c := range u {
			b = binary.BigEndian.AppendUint16(b, c)
		}
		return b, nil
	case []byte:
		return append(lengthHeader(0x4, uint64(len(x))), x...), nil
	case float64:
		return binary.BigEndian.AppendUint64([]byte{0x23}, math.Float64bits(x)), nil
	case int:
		return binaryInt(int64(x)), nil
	case int8:
		return binaryInt(int64(x)), nil
	case int16:
		return binaryInt(int64(x)), nil
	case int32:
		return binaryInt(int64(x)), nil
	case int64:
		return binaryInt(x), nil
	case uint8:
		return binaryUint(uint64(x)), nil
	case uint16:
		return binaryUint(uint64(x)), nil
	case uint32:
		return binaryUint(uint64(x)), nil
	case uint:
		return binaryUint(uint64(x)), nil
	case uint64:
		return binaryUint(x), nil
	}
	return nil, fmt.Errorf("plist: cannot encode %T in a binary plist", v)
}

func binaryInt(n int64) []byte {
	if n < 0 {
		return binary.BigEndian.AppendUint64([]byte{0x13}, uint64(n))
	}
	return binaryUint(uint64(n))
}

// binaryUint writes n in 1, 2, 4 or 8 bytes; values above MaxInt64 are
// not representable as unsigned and are refused by readers, so they keep
// the 8-byte form (read back as int64, as Apple's writer does).
func binaryUint(n uint64) []byte {
	switch {
	case n <= 0xFF:
		return []byte{0x10, byte(n)}
	case n <= 0xFFFF:
		return binary.BigEndian.AppendUint16([]byte{0x11}, uint16(n))
	case n <= 0xFFFFFFFF:
		return binary.BigEndian.AppendUint32([]byte{0x12}, uint32(n))
	}
	return binary.BigEndian.AppendUint64([]byte{0x13}, n)
}

// lengthHeader is a marker with its count: in the low nibble below 15,
// else nibble 0xF followed by an integer object.
func lengthHeader(marker byte, n uint64) []byte {
	if n < 15 {
		return []byte{marker<<4 | byte(n)}
	}
	return append([]byte{marker<<4 | 0xF}, binaryUint(n)...)
}

func sizeFor(n uint64) int {
	switch {
	case n <= 0xFF:
		return 1
	case n <= 0xFFFF:
		return 2
	case n <= 0xFFFFFFFF:
		return 4
	}
	return 8
}

func appendBE(b []byte, n uint64, size int) []byte {
	for i := size - 1; i >= 0; i-- {
		b = append(b, byte(n>>(8*i)))
	}
	return b
}
