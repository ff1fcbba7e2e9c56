package xpc

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// UUID is an XPC uuid: 16 raw bytes.
type UUID [16]byte

// String formats u as upper-case 8-4-4-4-12 hex, as CoreDevice writes
// identifiers.
func (u UUID) String() string {
	h := strings.ToUpper(hex.EncodeToString(u[:]))
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// ParseUUID parses the 8-4-4-4-12 hex form (either case).
func ParseUUID(s string) (UUID, error) {
	var u UUID
	h := strings.ReplaceAll(s, "-", "")
	if len(s) != 36 || len(h) != 32 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, fmt.Errorf("xpc: parse uuid %q: want 8-4-4-4-12 hex digits", s)
	}
	if _, err := hex.Decode(u[:], []byte(h)); err != nil {
		return u, fmt.Errorf("xpc: parse uuid %q: %w", s, err)
	}
	return u, nil
}

// FileTransfer is an XPC file_transfer object: the id of the message that
// carries the file on its own stream and the file's size.
type FileTransfer struct {
	MsgID uint64
	Size  uint64
}

// Entry is one key and value of a [Dict].
type Entry struct {
	Key   string
	Value any
}

// Dict is an XPC dictionary. Keys keep the order they were set or decoded
// in, so a decoded message re-encodes to the same bytes. The zero value is
// an empty dictionary.
type Dict []Entry

// Get returns the value for key and whether it is present.
func (d Dict) Get(key string) (any, bool) {
	for _, e := range d {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// Set replaces key's value, or appends key when it is new, and returns d.
func (d Dict) Set(key string, v any) Dict {
	for i := range d {
		if d[i].Key == key {
			d[i].Value = v
			return d
		}
	}
	return append(d, Entry{key, v})
}

// String returns the string at key, or "" when it is missing or not a
// string.
func (d Dict) String(key string) string {
	v, _ := d.Get(key)
	s, _ := v.(string)
	return s
}

// Dict returns the dictionary at key, or nil when it is missing or not a
// dictionary.
func (d Dict) Dict(key string) Dict {
	v, _ := d.Get(key)
	m, _ := v.(Dict)
	return m
}

// Bool returns the bool at key (false when missing or not a bool).
func (d Dict) Bool(key string) bool {
	v, _ := d.Get(key)
	b, _ := v.(bool)
	return b
}

// Uint returns the unsigned value at key; an int64 that is not negative
// counts too. ok is false when the key is missing or holds no such value.
func (d Dict) Uint(key string) (n uint64, ok bool) {
	v, _ := d.Get(key)
	switch x := v.(type) {
	case uint64:
		return x, true
	case int64:
		if x >= 0 {
			return uint64(x), true
		}
	}
	return 0, false
}

// Data returns the bytes at key, or nil when missing or not data.
func (d Dict) Data(key string) []byte {
	v, _ := d.Get(key)
	b, _ := v.([]byte)
	return b
}

// Array returns the array at key, or nil when missing or not an array.
func (d Dict) Array(key string) []any {
	v, _ := d.Get(key)
	a, _ := v.([]any)
	return a
}
