package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openlolo/openlolo/sdk"
)

// saveImages writes the answer's image blocks and records where in the
// structured answer: image_file for one image, image_files (in the
// answer's order) for several, as openlolo_full_page gives. With out
// empty, a screenshot or a full page goes to new temp files, while the
// observation an input tool returns is left unsaved: it is a by-product,
// and one temp file per tap piled up in /tmp.
func saveImages(c *Context, out string, res *sdk.Result) error {
	n := len(res.Images)
	if n == 0 || (out == "" && isObservation(res)) {
		return nil
	}
	paths := make([]string, n)
	for i, img := range res.Images {
		p, err := writeImage(imagePath(out, i, n, img.MIMEType), img)
		if err != nil {
			return err
		}
		paths[i] = p
		fmt.Fprintf(c.Stderr, "image written to %s\n", p)
	}
	if res.Structured == nil {
		res.Structured = map[string]any{}
	}
	if n == 1 {
		res.Structured["image_file"] = paths[0]
	} else {
		res.Structured["image_files"] = paths
	}
	return nil
}

// isObservation reports whether the answer's image is the observation an
// input tool took after acting (its structured answer says so).
func isObservation(res *sdk.Result) bool {
	_, ok := res.Structured["observation"]
	return ok
}

// imagePath is where image i of n goes: out itself for one image; for
// several, out's name with -1, -2, … before its extension (page.jpg →
// page-1.jpg), or with the image's own extension when out has none. ""
// (no --out) means a new temp file.
func imagePath(out string, i, n int, mime string) string {
	if out == "" || n == 1 {
		return out
	}
	ext := filepath.Ext(out)
	base := strings.TrimSuffix(out, ext)
	if ext == "" {
		ext = imageExt(mime)
	}
	return fmt.Sprintf("%s-%d%s", base, i+1, ext)
}

// imageExt is the file extension of an image block's MIME type.
func imageExt(mime string) string {
	if mime == "image/png" {
		return ".png"
	}
	return ".jpg"
}

// writeImage writes an image block to path, or to a new temp file.
func writeImage(path string, img sdk.Image) (string, error) {
	if path != "" {
		if err := os.WriteFile(path, img.Data, 0o644); err != nil {
			return "", fmt.Errorf("write screenshot: %w", err)
		}
		return path, nil
	}
	f, err := os.CreateTemp("", "openlolo-screenshot-*"+imageExt(img.MIMEType))
	if err != nil {
		return "", fmt.Errorf("write screenshot: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(img.Data); err != nil {
		return "", fmt.Errorf("write screenshot %s: %w", f.Name(), err)
	}
	return f.Name(), f.Close()
}
