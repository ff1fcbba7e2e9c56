package phone

import (
	"context"
	"image"

	"github.com/openlolo/openlolo/api"
)

// Element is one thing on the phone's screen as the backend's own tree
// describes it: what it is, what it says and where it is. Bounds are in
// the pixels of the screen geometry the list was taken under (see
// [ElementList]); control turns them into fractions of a frame.
type Element struct {
	Role api.ElementRole
	// Text is what the element shows; Label its accessibility label or
	// content description; Identifier its resource id or accessibility
	// identifier. Any may be empty.
	Text, Label, Identifier string
	// Class is the backend's own class name (e.g. android.widget.Switch),
	// kept for diagnostics; may be empty.
	Class  string
	Bounds image.Rectangle
	// The states that matter to an agent.
	Enabled, Clickable, LongClickable, Checkable, Checked, Selected, Focused, Scrollable, Password bool
}

// ElementList is the elements of one screen, outermost first (a parent
// before its children), with the geometry their bounds are in.
type ElementList struct {
	Source   api.ElementSource
	Geometry Geometry
	Elements []Element
	// Note, when set, is a sentence for the agent about the list (e.g. why
	// a fallback source answered).
	Note string
}

// ElementLister is a backend that lists the elements of its current
// screen from a tree of its own ([Capabilities].Elements). Backends
// without one get OCR elements from control.
type ElementLister interface {
	Elements(ctx context.Context) (ElementList, error)
}
