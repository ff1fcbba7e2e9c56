package plist

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrMalformed is wrapped by every error about the bytes of a property
// list (as opposed to an unsupported Go value).
var ErrMalformed = errors.New("plist: malformed property list")

const maxDepth = 64

const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
`

// dateLayout is the XML plist date form (always UTC).
const dateLayout = "2006-01-02T15:04:05Z"

// Marshal returns v as an XML property list.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(xmlHeader)
	if err := writeValue(&b, v, 0); err != nil {
		return nil, err
	}
	b.WriteString("</plist>\n")
	return b.Bytes(), nil
}

func writeValue(b *bytes.Buffer, v any, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("plist: encode: nested deeper than %d", maxDepth)
	}
	indent := strings.Repeat("\t", depth)
	b.WriteString(indent)
	switch x := v.(type) {
	case string:
		b.WriteString("<string>")
		xml.EscapeText(b, []byte(x))
		b.WriteString("</string>\n")
	case bool:
		if x {
			b.WriteString("<true/>\n")
		} else {
			b.WriteString("<false/>\n")
		}
	case int:
		fmt.Fprintf(b, "<integer>%d</integer>\n", x)
	case int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		fmt.Fprintf(b, "<integer>%d</integer>\n", x)
	case float64:
		b.WriteString("<real>" + strconv.FormatFloat(x, 'g', -1, 64) + "</real>\n")
	case []byte:
		b.WriteString("<data>" + base64.StdEncoding.EncodeToString(x) + "</data>\n")
	case time.Time:
		b.WriteString("<date>" + x.UTC().Format(dateLayout) + "</date>\n")
	case []any:
		if len(x) == 0 {
			b.WriteString("<array/>\n")
			return nil
		}
		b.WriteString("<array>\n")
		for i, e := range x {
			if err := writeValue(b, e, depth+1); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		b.WriteString(indent + "</array>\n")
	case Dict:
		return writeDict(b, x, depth, indent)
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
		return writeDict(b, d, depth, indent)
	default:
		return fmt.Errorf("plist: encode: %T has no property-list type", v)
	}
	return nil
}

func writeDict(b *bytes.Buffer, d Dict, depth int, indent string) error {
	if len(d) == 0 {
		b.WriteString("<dict/>\n")
		return nil
	}
	b.WriteString("<dict>\n")
	for _, e := range d {
		b.WriteString(indent + "\t<key>")
		xml.EscapeText(b, []byte(e.Key))
		b.WriteString("</key>\n")
		if err := writeValue(b, e.Value, depth+1); err != nil {
			return fmt.Errorf("%q: %w", e.Key, err)
		}
	}
	b.WriteString(indent + "</dict>\n")
	return nil
}

// Unmarshal decodes an XML or binary property list.
func Unmarshal(b []byte) (any, error) {
	if bytes.HasPrefix(b, []byte(binaryMagic)) {
		return unmarshalBinary(b)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: no <plist> element: %v", ErrMalformed, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Local != "plist" {
				// A bare value without the <plist> wrapper.
				return readValue(d, se, 0)
			}
			v, err := nextValue(d, 0)
			if err != nil {
				return nil, err
			}
			if v == nil {
				return nil, fmt.Errorf("%w: empty <plist>", ErrMalformed)
			}
			return v, nil
		}
	}
}

// UnmarshalDict decodes a property list whose root is a dictionary.
func UnmarshalDict(b []byte) (Dict, error) {
	v, err := Unmarshal(b)
	if err != nil {
		return nil, err
	}
	d, ok := v.(Dict)
	if !ok {
		return nil, fmt.Errorf("%w: root is %T, not a dictionary", ErrMalformed, v)
	}
	return d, nil
}

// nextValue reads the next element as a value; it returns nil, nil at the
// end of the enclosing element.
func nextValue(d *xml.Decoder, depth int) (any, error) {
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return readValue(d, t, depth)
		case xml.EndElement:
			return nil, nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return nil, fmt.Errorf("%w: text %q between elements", ErrMalformed, t)
			}
		}
	}
}

// text reads the character data of the element just started, up to its end.
func text(d *xml.Decoder) (string, error) {
	var s strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			s.Write(t)
		case xml.EndElement:
			return s.String(), nil
		case xml.StartElement:
			return "", fmt.Errorf("%w: <%s> inside a scalar", ErrMalformed, t.Name.Local)
		}
	}
}

func readValue(d *xml.Decoder, se xml.StartElement, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", ErrMalformed, maxDepth)
	}
	name := se.Name.Local
	switch name {
	case "dict":
		m := Dict{}
		for {
			k, err := nextValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			if k == nil {
				return m, nil
			}
			key, ok := k.(keyName)
			if !ok {
				return nil, fmt.Errorf("%w: <dict> entry without <key>", ErrMalformed)
			}
			v, err := nextValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			if v == nil {
				return nil, fmt.Errorf("%w: <key>%s</key> without a value", ErrMalformed, key)
			}
			if _, isKey := v.(keyName); isKey {
				return nil, fmt.Errorf("%w: <key>%s</key> followed by another key", ErrMalformed, key)
			}
			m = append(m, Entry{string(key), v})
		}
	case "array":
		a := []any{}
		for {
			v, err := nextValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			if v == nil {
				return a, nil
			}
			if _, isKey := v.(keyName); isKey {
				return nil, fmt.Errorf("%w: <key> in an <array>", ErrMalformed)
			}
			a = append(a, v)
		}
	case "true", "false":
		if _, err := text(d); err != nil {
			return nil, err
		}
		return name == "true", nil
	}
	s, err := text(d)
	if err != nil {
		return nil, err
	}
	switch name {
	case "key":
		return keyName(s), nil
	case "string":
		return s, nil
	case "integer":
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, "-") {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: <integer>%s</integer>", ErrMalformed, s)
			}
			return n, nil
		}
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: <integer>%s</integer>", ErrMalformed, s)
		}
		return n, nil
	case "real":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil && !math.IsInf(f, 0) {
			return nil, fmt.Errorf("%w: <real>%s</real>", ErrMalformed, s)
		}
		return f, nil
	case "data":
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
		p, err := base64.StdEncoding.DecodeString(clean)
		if err != nil {
			return nil, fmt.Errorf("%w: <data>: %v", ErrMalformed, err)
		}
		return p, nil
	case "date":
		t, err := time.Parse(dateLayout, strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%w: <date>%s</date>", ErrMalformed, s)
		}
		return t, nil
	}
	return nil, fmt.Errorf("%w: unknown element <%s>", ErrMalformed, name)
}

// keyName marks a <key> while a dictionary is read; it never escapes.
type keyName string
