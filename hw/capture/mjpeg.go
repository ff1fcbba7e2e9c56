package capture

import (
	"bytes"
	"image"
	"image/jpeg"
)

// Many UVC devices send Motion-JPEG frames without Huffman tables (DHT):
// the format assumes the standard tables of JPEG Annex K, which
// image/jpeg does not.

// jpeg markers.
const (
	markerSOI = 0xd8
	markerDHT = 0xc4
	markerSOS = 0xda
)

// sosOffset returns the offset of the SOS marker and whether a DHT
// segment comes before it; -1 when the frame cannot be walked.
func sosOffset(b []byte) (sos int, hasDHT bool) {
	if len(b) < 4 || b[0] != 0xff || b[1] != markerSOI {
		return -1, false
	}
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xff {
			return -1, false
		}
		m := b[i+1]
		if m == 0xff { // fill byte
			i++
			continue
		}
		if m == markerSOS {
			return i, hasDHT
		}
		if m == markerDHT {
			hasDHT = true
		}
		i += 2 + (int(b[i+2])<<8 | int(b[i+3]))
	}
	return -1, false
}

// standardDHT returns the DHT segments of the Annex K tables, taken from
// a tiny image encoded with image/jpeg (which always writes them).
func standardDHT() []byte {
	var buf bytes.Buffer
	jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 8, 8)), nil) // colour: all four tables
	b := buf.Bytes()
	var out []byte
	for i := 2; i+4 <= len(b) && b[i] == 0xff && b[i+1] != markerSOS; {
		n := 2 + (int(b[i+2])<<8 | int(b[i+3]))
		if b[i+1] == markerDHT {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// FixMJPEG returns b with the standard Huffman tables inserted before the
// scan when it has none, else b itself, so any JPEG decoder reads it.
func FixMJPEG(b []byte) []byte {
	sos, has := sosOffset(b)
	if sos < 0 || has {
		return b
	}
	dht := standardDHT()
	out := make([]byte, 0, len(b)+len(dht))
	out = append(out, b[:sos]...)
	out = append(out, dht...)
	return append(out, b[sos:]...)
}
