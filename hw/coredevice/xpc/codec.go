package xpc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// The XPC object type tags.
const (
	typeNull         uint32 = 0x1000
	typeBool         uint32 = 0x2000
	typeInt64        uint32 = 0x3000
	typeUint64       uint32 = 0x4000
	typeDouble       uint32 = 0x5000
	typeDate         uint32 = 0x7000
	typeData         uint32 = 0x8000
	typeString       uint32 = 0x9000
	typeUUID         uint32 = 0xA000
	typeArray        uint32 = 0xE000
	typeDict         uint32 = 0xF000
	typeFileTransfer uint32 = 0x1A000
)

// maxDepth bounds nesting so that a hostile message cannot exhaust the
// stack; CoreDevice messages nest fewer than ten levels.
const maxDepth = 64

// ErrMalformed is wrapped by every decoding error caused by the bytes
// themselves (as opposed to a short read).
var ErrMalformed = errors.New("xpc: malformed message")

var le = binary.LittleEndian

func pad4(n int) int { return (4 - n%4) % 4 }

// AppendObject appends the encoding of v to b. It fails for Go types that
// have no XPC type (see the package documentation); map[string]any is
// accepted and encoded with its keys sorted.
func AppendObject(b []byte, v any) ([]byte, error) {
	return appendObject(b, v, 0)
}

func appendObject(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return b, fmt.Errorf("xpc: encode: nested deeper than %d", maxDepth)
	}
	switch x := v.(type) {
	case nil:
		return le.AppendUint32(b, typeNull), nil
	case bool:
		b = le.AppendUint32(b, typeBool)
		if x {
			return le.AppendUint32(b, 1), nil
		}
		return le.AppendUint32(b, 0), nil
	case int64:
		b = le.AppendUint32(b, typeInt64)
		return le.AppendUint64(b, uint64(x)), nil
	case uint64:
		b = le.AppendUint32(b, typeUint64)
		return le.AppendUint64(b, x), nil
	case float64:
		b = le.AppendUint32(b, typeDouble)
		return le.AppendUint64(b, math.Float64bits(x)), nil
	case time.Time:
		b = le.AppendUint32(b, typeDate)
		return le.AppendUint64(b, uint64(x.UnixNano())), nil
	case []byte:
		b = le.AppendUint32(b, typeData)
		b = le.AppendUint32(b, uint32(len(x)))
		b = append(b, x...)
		return append(b, make([]byte, pad4(len(x)))...), nil
	case string:
		b = le.AppendUint32(b, typeString)
		b = le.AppendUint32(b, uint32(len(x)+1))
		return appendCString(b, x), nil
	case UUID:
		b = le.AppendUint32(b, typeUUID)
		return append(b, x[:]...), nil
	case []any:
		b = le.AppendUint32(b, typeArray)
		at := len(b)
		b = le.AppendUint32(b, 0) // body length, patched below
		b = le.AppendUint32(b, uint32(len(x)))
		for i, e := range x {
			var err error
			if b, err = appendObject(b, e, depth+1); err != nil {
				return b, fmt.Errorf("[%d]: %w", i, err)
			}
		}
		le.PutUint32(b[at:], uint32(len(b)-at-4))
		return b, nil
	case Dict:
		return appendDict(b, x, depth)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := make(Dict, 0, len(x))
		for _, k := range keys {
			d = append(d, Entry{k, x[k]})
		}
		return appendDict(b, d, depth)
	case FileTransfer:
		b = le.AppendUint32(b, typeFileTransfer)
		b = le.AppendUint64(b, x.MsgID)
		return appendDict(b, Dict{{"s", x.Size}}, depth)
	default:
		return b, fmt.Errorf("xpc: encode: %T has no XPC type", v)
	}
}

func appendDict(b []byte, d Dict, depth int) ([]byte, error) {
	b = le.AppendUint32(b, typeDict)
	at := len(b)
	b = le.AppendUint32(b, 0) // body length, patched below
	b = le.AppendUint32(b, uint32(len(d)))
	for _, e := range d {
		b = appendCString(b, e.Key)
		var err error
		if b, err = appendObject(b, e.Value, depth+1); err != nil {
			return b, fmt.Errorf("%q: %w", e.Key, err)
		}
	}
	le.PutUint32(b[at:], uint32(len(b)-at-4))
	return b, nil
}

// appendCString appends s, its NUL and the padding to four bytes.
func appendCString(b []byte, s string) []byte {
	b = append(b, s...)
	return append(b, make([]byte, 1+pad4(len(s)+1))...)
}

// decoder reads XPC objects from a byte slice it never reads past.
type decoder struct {
	b   []byte
	off int
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: at byte %d: %s", ErrMalformed, d.off, fmt.Sprintf(format, args...))
}

func (d *decoder) take(n int) ([]byte, error) {
	if n < 0 || n > len(d.b)-d.off {
		return nil, d.errorf("need %d bytes, %d left", n, len(d.b)-d.off)
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p, nil
}

func (d *decoder) u32() (uint32, error) {
	p, err := d.take(4)
	if err != nil {
		return 0, err
	}
	return le.Uint32(p), nil
}

func (d *decoder) u64() (uint64, error) {
	p, err := d.take(8)
	if err != nil {
		return 0, err
	}
	return le.Uint64(p), nil
}

// cstring reads a NUL-terminated string and its padding.
func (d *decoder) cstring() (string, error) {
	rest := d.b[d.off:]
	for i, c := range rest {
		if c == 0 {
			s := string(rest[:i])
			if _, err := d.take(i + 1 + pad4(i+1)); err != nil {
				return "", err
			}
			return s, nil
		}
	}
	return "", d.errorf("key without a NUL terminator")
}

// DecodeObject decodes one object that fills b exactly.
func DecodeObject(b []byte) (any, error) {
	d := &decoder{b: b}
	v, err := d.object(0)
	if err != nil {
		return nil, err
	}
	if d.off != len(b) {
		return nil, d.errorf("%d bytes after the object", len(b)-d.off)
	}
	return v, nil
}

func (d *decoder) object(depth int) (any, error) {
	if depth > maxDepth {
		return nil, d.errorf("nested deeper than %d", maxDepth)
	}
	t, err := d.u32()
	if err != nil {
		return nil, err
	}
	switch t {
	case typeNull:
		return nil, nil
	case typeBool:
		// One byte of truth, padded to four (devices send 01 00 00 00).
		p, err := d.take(4)
		if err != nil {
			return nil, err
		}
		return p[0] != 0, nil
	case typeInt64:
		n, err := d.u64()
		return int64(n), err
	case typeUint64:
		return d.u64()
	case typeDouble:
		n, err := d.u64()
		return math.Float64frombits(n), err
	case typeDate:
		n, err := d.u64()
		return time.Unix(0, int64(n)).UTC(), err
	case typeData:
		n, err := d.u32()
		if err != nil {
			return nil, err
		}
		p, err := d.take(int(n))
		if err != nil {
			return nil, err
		}
		if _, err := d.take(pad4(int(n))); err != nil {
			return nil, err
		}
		return append([]byte{}, p...), nil
	case typeString:
		n, err := d.u32()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, d.errorf("string of length 0 (the NUL counts)")
		}
		p, err := d.take(int(n))
		if err != nil {
			return nil, err
		}
		if p[n-1] != 0 {
			return nil, d.errorf("string without its NUL terminator")
		}
		if _, err := d.take(pad4(int(n))); err != nil {
			return nil, err
		}
		return string(p[:n-1]), nil
	case typeUUID:
		p, err := d.take(16)
		if err != nil {
			return nil, err
		}
		return UUID(p), nil
	case typeArray:
		n, err := d.u32()
		if err != nil {
			return nil, err
		}
		count, err := d.u32()
		if err != nil {
			return nil, err
		}
		// Each element takes at least its 4-byte type tag.
		if int(count) > (len(d.b)-d.off)/4 {
			return nil, d.errorf("array of %d elements in %d bytes", count, len(d.b)-d.off)
		}
		start := d.off
		a := make([]any, 0, count)
		for i := 0; i < int(count); i++ {
			v, err := d.object(depth + 1)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			a = append(a, v)
		}
		// Devices count the count field in the length (go-ios's
		// captured launch request does); go-ios v1.3.2 writes the
		// elements' length alone. Read both, write the device's form.
		if used := d.off - start; int(n) != used+4 && int(n) != used {
			return nil, d.errorf("array length %d, its %d elements take %d bytes", n, count, used)
		}
		return a, nil
	case typeDict:
		body, count, err := d.container()
		if err != nil {
			return nil, err
		}
		return body.dict(count, depth)
	case typeFileTransfer:
		id, err := d.u64()
		if err != nil {
			return nil, err
		}
		v, err := d.object(depth + 1)
		if err != nil {
			return nil, err
		}
		m, ok := v.(Dict)
		if !ok {
			return nil, d.errorf("file transfer without its dictionary")
		}
		size, ok := m.Get("s")
		n, isUint := size.(uint64)
		if !ok || !isUint {
			return nil, d.errorf("file transfer without a uint64 size")
		}
		return FileTransfer{MsgID: id, Size: n}, nil
	default:
		return nil, d.errorf("unknown type 0x%x", t)
	}
}

// container reads an array's or dictionary's body length and count and
// returns a decoder over exactly that body (after the count).
func (d *decoder) container() (*decoder, uint32, error) {
	n, err := d.u32()
	if err != nil {
		return nil, 0, err
	}
	if n < 4 {
		return nil, 0, d.errorf("container body of %d bytes has no count", n)
	}
	p, err := d.take(int(n))
	if err != nil {
		return nil, 0, err
	}
	count := le.Uint32(p)
	return &decoder{b: p[4:]}, count, nil
}

func (d *decoder) dict(count uint32, depth int) (Dict, error) {
	// Each entry takes at least a padded key (4) and a type tag (4).
	if int(count) > len(d.b)/8 {
		return nil, d.errorf("dictionary of %d entries in %d bytes", count, len(d.b))
	}
	m := make(Dict, 0, count)
	for i := 0; i < int(count); i++ {
		k, err := d.cstring()
		if err != nil {
			return nil, err
		}
		v, err := d.object(depth + 1)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
		m = append(m, Entry{k, v})
	}
	return m, d.end()
}

func (d *decoder) end() error {
	if d.off != len(d.b) {
		return d.errorf("%d bytes after the last element", len(d.b)-d.off)
	}
	return nil
}
