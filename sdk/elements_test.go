package sdk_test

import (
	"context"
	"errors"
	"testing"

	"github.com/openlolo/openlolo/sdk"
)

// TestElementsStaleAndPages: Limit and Cursor page through one frame's
// list; a screenshot of the same picture keeps its ids; an id of a frame
// the caller has moved on from is ErrFrameExpired.
func TestElementsStaleAndPages(t *testing.T) {
	box := startPairedBox()
	defer box.Close()
	ctx := context.Background()
	c, err := sdk.Dial(ctx, box.URL, &sdk.Options{Store: box.Store})
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.Elements(ctx, sdk.ElementsOptions{Limit: 4})
	if err != nil || len(first.Elements) != 4 || first.NextCursor == "" || first.Frame.ID == "" {
		t.Fatalf("first page: %+v, %v", first, err)
	}
	second, err := c.Elements(ctx, sdk.ElementsOptions{Limit: 4, Cursor: first.NextCursor})
	if err != nil || second.Elements[0].ID != "e5" || second.Frame != first.Frame {
		t.Fatalf("second page: %+v, %v", second, err)
	}
	if _, err := c.Screenshot(ctx, sdk.ScreenshotOptions{}); err != nil {
		t.Fatal(err)
	}
	// The same picture: the ids still hold.
	if _, err := c.LongPressElement(ctx, first.Frame, "e21", 0.5, &sdk.InputOptions{Observe: new(bool)}); err != nil {
		t.Fatalf("long press on the same picture: %v", err)
	}
	if _, err := c.TapElement(ctx, first.Frame, "e9", nil); err != nil {
		t.Fatalf("tap Notes: %v", err)
	}
	if open, err := c.Elements(ctx, sdk.ElementsOptions{Query: "note", ClickableOnly: true}); err != nil || len(open.Elements) != 1 {
		t.Fatalf("after the tap, Notes' field: %+v, %v", open, err)
	}
	if _, err := c.TapElement(ctx, first.Frame, "e9", nil); !errors.Is(err, sdk.ErrFrameExpired) {
		t.Fatalf("stale id: %v, want ErrFrameExpired", err)
	}
	if _, err := c.TypeTextInto(ctx, first.Frame, "e1", "x", nil); !errors.Is(err, sdk.ErrFrameExpired) {
		t.Fatalf("type into a stale id: %v, want ErrFrameExpired", err)
	}
}
