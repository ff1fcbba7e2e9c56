package mcp

import (
	"fmt"
	"strings"

	"github.com/openlolo/openlolo/api"
)

// sayFindText says how many pieces of text were found and where the first
// is, with the frame to tap it on.
func sayFindText(_ api.Outcome, r *api.FindTextResult) string {
	if r.Query == "" {
		return fmt.Sprintf("%d lines of text read from frame_id %s (geometry_epoch %s), top to bottom.", len(r.Lines), r.FrameID, r.GeometryEpoch)
	}
	if len(r.Matches) == 0 {
		return fmt.Sprintf("No text containing %q on the screen (frame_id %s); call without query to read every line.", r.Query, r.FrameID)
	}
	m := r.Matches[0]
	return fmt.Sprintf("%d matches for %q; the first, %q, is centred at x=%.4f y=%.4f of frame_id %s (geometry_epoch %s).",
		len(r.Matches), r.Query, m.Text, m.CenterX, m.CenterY, r.FrameID, r.GeometryEpoch)
}

// sayElements is the list as an agent reads it: a line on the frame and
// the source, then one line per element (id, role, text or label, states
// that are set, centre), and where the next page is.
func sayElements(_ api.Outcome, r *api.ElementsResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d elements (source %s) of frame_id %s (geometry_epoch %s); tap one with element=<id> and that frame.",
		len(r.Elements), r.Total, r.Source, r.FrameID, r.GeometryEpoch)
	if r.Note != "" {
		b.WriteString(" " + r.Note)
	}
	for _, e := range r.Elements {
		fmt.Fprintf(&b, "\n%s %s", e.ID, e.Role)
		if e.Text != "" {
			fmt.Fprintf(&b, " %q", e.Text)
		}
		if e.Label != "" && e.Label != e.Text {
			fmt.Fprintf(&b, " label=%q", e.Label)
		}
		if e.Text == "" && e.Label == "" && e.Identifier != "" {
			fmt.Fprintf(&b, " id=%q", e.Identifier)
		}
		for _, st := range []struct {
			on   bool
			name string
		}{{!e.Enabled, "disabled"}, {e.Clickable, "clickable"}, {e.Checkable && !e.Checked, "off"}, {e.Checked, "on"},
			{e.Selected, "selected"}, {e.Focused, "focused"}, {e.Scrollable, "scrollable"}, {e.Password, "password"}} {
			if st.on {
				b.WriteString(" " + st.name)
			}
		}
		fmt.Fprintf(&b, " @%.3f,%.3f", e.CenterX, e.CenterY)
	}
	if r.NextCursor != "" {
		fmt.Fprintf(&b, "\nMore: cursor=%s", r.NextCursor)
	}
	return b.String()
}
