package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/sdk"
)

func TestImagePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		out  string
		i, n int
		mime string
		want string
	}{
		{"shot.jpg", 0, 1, "image/jpeg", "shot.jpg"},
		{"page", 0, 1, "image/png", "page"},
		{"page.jpg", 0, 6, "image/jpeg", "page-1.jpg"},
		{"page.jpg", 5, 6, "image/jpeg", "page-6.jpg"},
		{"out.d/page", 1, 3, "image/png", "out.d/page-2.png"},
		{"out.d/page", 2, 3, "image/jpeg", "out.d/page-3.jpg"},
		{"", 0, 3, "image/jpeg", ""},
	}
	for _, tt := range tests {
		if got := imagePath(tt.out, tt.i, tt.n, tt.mime); got != tt.want {
			t.Errorf("imagePath(%q, %d, %d, %q) = %q, want %q", tt.out, tt.i, tt.n, tt.mime, got, tt.want)
		}
	}
}

// Issue 22 item 6: --out wrote only the first of a full page's images.
func TestSaveImagesEveryPage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := &sdk.Result{Structured: map[string]any{"page_count": 3}}
	for _, b := range []string{"one", "two", "three"} {
		res.Images = append(res.Images, sdk.Image{MIMEType: "image/jpeg", Data: []byte(b)})
	}
	c, _, errb := testContext()
	if err := saveImages(c, filepath.Join(dir, "page.jpg"), res); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "page-1.jpg"), filepath.Join(dir, "page-2.jpg"), filepath.Join(dir, "page-3.jpg")}
	if got, _ := res.Structured["image_files"].([]string); !slices.Equal(got, want) {
		t.Fatalf("image_files = %v, want %v", res.Structured["image_files"], want)
	}
	for i, p := range want {
		if b, err := os.ReadFile(p); err != nil || string(b) != string(res.Images[i].Data) {
			t.Errorf("%s = %q, %v; want image %d", p, b, err, i)
		}
		if !strings.Contains(errb.String(), "image written to "+p) {
			t.Errorf("stderr %q does not name %s", errb.String(), p)
		}
	}
}

// Issue 22 item 11: every input call without --out left a JPEG in /tmp.
func TestSaveImagesObservationNeedsOut(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.CreateTemp's folder
	tap := func() *sdk.Result {
		return &sdk.Result{Structured: map[string]any{"observation": map[string]any{"frame_id": "f1"}},
			Images: []sdk.Image{{MIMEType: "image/jpeg", Data: []byte("after the tap")}}}
	}
	c, _, _ := testContext()
	res := tap()
	if err := saveImages(c, "", res); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 || res.Structured["image_file"] != nil {
		t.Fatalf("an input's observation without --out was written: %v, image_file %v", ents, res.Structured["image_file"])
	}
	out := filepath.Join(tmp, "after.jpg")
	res = tap()
	if err := saveImages(c, out, res); err != nil || res.Structured["image_file"] != out {
		t.Fatalf("with --out: %v, image_file %v", err, res.Structured["image_file"])
	}
	// A screenshot without --out still goes to a temp file (its path printed).
	shot := &sdk.Result{Structured: map[string]any{"frame_id": "f2"}, Images: []sdk.Image{{MIMEType: "image/png", Data: []byte("png")}}}
	if err := saveImages(c, "", shot); err != nil {
		t.Fatal(err)
	}
	if p, _ := shot.Structured["image_file"].(string); filepath.Dir(p) != tmp || filepath.Ext(p) != ".png" {
		t.Fatalf("screenshot without --out went to %q, want a .png in %s", p, tmp)
	}
}

// testContext is a Context with buffers for its output.
func testContext() (c *Context, stdout, stderr *lockedBuffer) {
	stdout, stderr = &lockedBuffer{}, &lockedBuffer{}
	return &Context{Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr}, stdout, stderr
}
