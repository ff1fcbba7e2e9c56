package appliance

import (
	"bytes"
	"log/slog"
	"testing"
	"time"
)

func TestStartupStepsLogEachStep(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newStartupSteps(log, func() time.Time { return now })
	now = now.Add(30 * time.Millisecond)
	s.done("store")
	now = now.Add(5 * time.Millisecond)
	s.done("listen")
	want := `level=DEBUG msg="start-up step done" step=store took=30ms since_start=30ms
level=DEBUG msg="start-up step done" step=listen took=5ms since_start=35ms
`
	if got := buf.String(); got != want {
		t.Fatalf("log =\n%s\nwant\n%s", got, want)
	}
}
