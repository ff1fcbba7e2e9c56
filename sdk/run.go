package sdk

import (
	"context"

	"github.com/google/uuid"

	"github.com/openlolo/openlolo/api"
)

// Run names a run: the calls a script makes toward one goal, which the
// box page's Activity groups under the title and openlolo_watch's
// operation events carry.
type Run = api.Run

type runKey struct{}

// WithRun returns ctx naming a new run with title (and a fresh id): every
// tool call made with the returned context is a step of it (the call's
// _meta "openlolo.mcp".run). Boxes that do not know runs ignore it.
func WithRun(ctx context.Context, title string) (context.Context, Run) {
	r := Run{ID: uuid.NewString(), Title: title}
	return ContextWithRun(ctx, r), r
}

// ContextWithRun returns ctx naming run r (to continue a run by its id,
// say after a restart).
func ContextWithRun(ctx context.Context, r Run) context.Context {
	return context.WithValue(ctx, runKey{}, r)
}

// RunFrom is the run ctx names, if any.
func RunFrom(ctx context.Context) (Run, bool) {
	r, ok := ctx.Value(runKey{}).(Run)
	return r, ok && r.ID != ""
}

// runMeta is the _meta member a call in run r sends.
func runMeta(r Run) map[string]any {
	return map[string]any{"openlolo.mcp": map[string]any{"run": map[string]any{"id": r.ID, "title": r.Title}}}
}
