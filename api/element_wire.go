package api

// Element is one thing on the screen as openlolo_elements answers it: a
// short id valid for the frame the answer names, what it is and says, and
// where it is as fractions of that frame.
type Element struct {
	ID         string        `json:"id" desc:"Pass it as element to openlolo_tap, openlolo_long_press or openlolo_type_text with the answer's frame_id and geometry_epoch; valid for that frame only."`
	Role       ElementRole   `json:"role"`
	Text       string        `json:"text,omitempty" desc:"What the element shows."`
	Label      string        `json:"label,omitempty" desc:"Its accessibility label or content description."`
	Identifier string        `json:"identifier,omitempty" desc:"Its resource id or accessibility identifier."`
	Bounds     ElementBounds `json:"bounds" desc:"Its box as fractions of the frame (0..1, from the top left)."`
	CenterX    float64       `json:"center_x" desc:"Where a tap by element lands, as a fraction of the frame's width."`
	CenterY    float64       `json:"center_y"`
	// The states that matter; false ones are left out, but enabled, which
	// is always sent.
	Enabled    bool `json:"enabled"`
	Clickable  bool `json:"clickable,omitempty"`
	Checkable  bool `json:"checkable,omitempty"`
	Checked    bool `json:"checked,omitempty"`
	Selected   bool `json:"selected,omitempty"`
	Focused    bool `json:"focused,omitempty"`
	Scrollable bool `json:"scrollable,omitempty"`
	Password   bool `json:"password,omitempty"`
}

// ElementBounds is an element's box as fractions of a frame.
type ElementBounds struct {
	X      float64 `json:"x" desc:"Left edge, a fraction of the frame's width."`
	Y      float64 `json:"y" desc:"Top edge, a fraction of the frame's height."`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// ElementsResult is openlolo_elements's result. The frame it names is the
// caller's latest, so an element's id goes straight into a tap with it.
type ElementsResult struct {
	FrameID       string        `json:"frame_id"`
	GeometryEpoch string        `json:"geometry_epoch"`
	Source        ElementSource `json:"source" desc:"Where the elements came from: accessibility (the phone's own tree), sim (the simulator's tree) or ocr (text lines read from the picture)."`
	Elements      []Element     `json:"elements" desc:"The elements that pass the filters, outermost first, at most limit of them."`
	Total         int           `json:"total" desc:"How many elements pass the filters on this frame, on every page."`
	NextCursor    string        `json:"next_cursor,omitempty" desc:"Pass it as cursor (with the same query and clickable_only) for the next page; absent on the last."`
	Note          string        `json:"note,omitempty" desc:"A sentence about the list, e.g. why OCR answered in place of the phone's tree."`
}

// Enum lists the element roles.
func (ElementRole) Enum() []string { return enumOf(ElementRoles()) }

// Enum lists the element sources.
func (ElementSource) Enum() []string { return enumOf(ElementSources()) }

func enumOf[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
