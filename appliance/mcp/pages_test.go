package mcp_test

import (
	"bytes"
	"fmt"
	"image"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/api"
)

// images decodes every image block of res, in order.
func images(t *testing.T, res *sdk.CallToolResult) []*image.RGBA {
	t.Helper()
	var out []*image.RGBA
	for _, c := range res.Content {
		if img, ok := c.(*sdk.ImageContent); ok {
			pic, _, err := image.Decode(bytes.NewReader(img.Data))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rgba(pic))
		}
	}
	return out
}

func num(v any) int { f, _ := v.(float64); return int(f) }

// TestSimSendTextAndFullPage is the path on the sim through the
// real endpoint: send_text pastes Unicode into a note and the clipboard
// reads it back; full_page captures the note, three screens tall, page by
// page to its end, with one image block per page and the stitched page
// last, whose rows are the first page's and, at its end, the last page's;
// its current frame takes the next tap.
func TestSimSendTextAndFullPage(t *testing.T) {
	b := newSimBox(t)
	cs := b.session(t, b.token(t, "pager", "phone:read phone:control"))
	_, la := call(t, cs, "openlolo_launch_app", map[string]any{"bundle_id": "com.apple.mobilenotes", "observe": false})
	mustOK(t, "launch Notes", la)
	var note strings.Builder
	note.WriteString("héllo ✓ 日本")
	for i := 1; i < 80; i++ {
		fmt.Fprintf(&note, "\nLine %d: item %d", i, i*7)
	}
	_, st := call(t, cs, "openlolo_send_text", map[string]any{"text": note.String(), "observe": false})
	mustOK(t, "send_text", st)
	if st["clipboard_replaced"] != true || num(st["characters"]) != len([]rune(note.String())) || b.sim.NoteText() != note.String() {
		t.Fatalf("send_text %v; the note is %d characters", st, len(b.sim.NoteText()))
	}
	_, cb := call(t, cs, "openlolo_clipboard", nil)
	if mustOK(t, "clipboard", cb); cb["text"] != note.String() {
		t.Fatalf("the clipboard reads %q", cb["text"])
	}

	_, shot := call(t, cs, "openlolo_screenshot", map[string]any{"max_size": 256})
	_, top := call(t, cs, "openlolo_tap", frameArgs(shot, 0.5, 0.01))
	mustOK(t, "tap the status bar", top)
	res, fp := call(t, cs, "openlolo_full_page", map[string]any{"output": "both", "format": "png", "max_size": 1024, "settle": 0})
	mustOK(t, "full_page", fp)
	pages, _ := fp["pages"].([]any)
	imgs := images(t, res)
	n := num(fp["page_count"])
	if n < 3 || len(pages) != n || len(imgs) != n+1 || fp["stopped"] != "end" {
		t.Fatalf("full_page: %d pages, %d images, stopped %v", n, len(imgs), fp["stopped"])
	}
	for i, p := range pages {
		pm := p.(map[string]any)
		if num(pm["image"]) != i || imgs[i].Rect.Dx() != num(pm["width"]) || imgs[i].Rect.Dy() != num(pm["height"]) || (i > 0 && pm["matched"] != true) {
			t.Errorf("page %d: %v, image %v", i, pm, imgs[i].Rect)
		}
	}
	stitched := fp["stitched"].(map[string]any)
	whole := imgs[n]
	if whole.Rect.Dx() != num(stitched["width"]) || whole.Rect.Dy() != num(stitched["height"]) || whole.Rect.Dy() < 2*imgs[0].Rect.Dy() {
		t.Fatalf("stitched %v, image %v", stitched, whole.Rect)
	}
	first, last := imgs[0], imgs[n-1]

	row := func(img *image.RGBA, y int) []byte { return img.Pix[y*img.Stride : y*img.Stride+4*img.Rect.Dx()] }
	for y := range first.Rect.Dy() * 3 / 4 {
		if !bytes.Equal(row(whole, y), row(first, y)) {
			t.Fatalf("stitched row %d is not the first page's", y)
		}
	}
	// The last strip (the last page's new rows and the footer) starts on
	// a row of the scaled page, so its seam may sit a row off: each of its
	// rows is one of the last page's within a row.
	lastShift := num(pages[n-1].(map[string]any)["shift"])
	tail := (num(fp["footer"]) + lastShift) * last.Rect.Dy() / num(pages[n-1].(map[string]any)["native_height"])
	if tail < 20 {
		t.Fatalf("the last strip is %d rows", tail)
	}
	for k := 2; k < tail-2; k++ {
		got := row(whole, whole.Rect.Dy()-k)
		if !bytes.Equal(got, row(last, last.Rect.Dy()-k)) && !bytes.Equal(got, row(last, last.Rect.Dy()-k-1)) &&
			!bytes.Equal(got, row(last, last.Rect.Dy()-k+1)) {
			t.Fatalf("stitched row %d from the end is not the last page's", k)
		}
	}
	cur := fp["current"].(map[string]any)
	_, tap := call(t, cs, "openlolo_tap", frameArgs(cur, 0.5, 0.5))
	mustOK(t, "tap on full_page's current frame", tap)

	// full_page's answer says what the blocks are; a refused one has none.
	res, bad := call(t, cs, "openlolo_full_page", map[string]any{"max_pages": 0})
	if code(bad) != api.CodeInvalidArguments || len(images(t, res)) != 0 || !res.IsError {
		t.Fatalf("max_pages 0: %v", bad)
	}
}
