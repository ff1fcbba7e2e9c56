// Package plist encodes Apple property lists as XML and decodes them from
// XML or binary ("bplist00") form, as usbmuxd and lockdownd exchange them.
//
// Values are Go types:
//
//	string     <string>
//	bool       <true/> <false/>
//	int64      <integer> (negative values decode to int64)
//	uint64     <integer> (values ≥ 0 decode to uint64)
//	float64    <real>
//	[]byte     <data>
//	time.Time  <date>
//	[]any      <array>
//	Dict       <dict> (keys keep their order)
//
// Encoding also takes int, the sized integer types and map[string]any
// (keys sorted). Decoding bounds nesting and sizes.
package plist
