package mcp

import (
	"fmt"

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
