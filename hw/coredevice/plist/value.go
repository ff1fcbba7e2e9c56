package plist

// Entry is one key and value of a [Dict].
type Entry struct {
	Key   string
	Value any
}

// Dict is a property-list dictionary whose keys keep their order. The zero
// value is an empty dictionary.
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

// String returns the string at key ("" when missing or not a string).
func (d Dict) String(key string) string {
	v, _ := d.Get(key)
	s, _ := v.(string)
	return s
}

// Bool returns the bool at key (false when missing or not a bool).
func (d Dict) Bool(key string) bool {
	v, _ := d.Get(key)
	b, _ := v.(bool)
	return b
}

// Data returns the bytes at key (nil when missing or not data).
func (d Dict) Data(key string) []byte {
	v, _ := d.Get(key)
	b, _ := v.([]byte)
	return b
}

// Dict returns the dictionary at key (nil when missing or not a dict).
func (d Dict) Dict(key string) Dict {
	v, _ := d.Get(key)
	m, _ := v.(Dict)
	return m
}

// Array returns the array at key (nil when missing or not an array).
func (d Dict) Array(key string) []any {
	v, _ := d.Get(key)
	a, _ := v.([]any)
	return a
}

// Uint returns the non-negative integer at key; ok is false when the key
// is missing or holds no such value.
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
