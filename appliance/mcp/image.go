package mcp

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"sync"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/hw/phone"
)

// jpegQuality is the screenshot JPEG quality.
const jpegQuality = 80

// encoded is a screenshot ready to send.
type encoded struct {
	data          []byte
	mime          string
	width, height int
}

type imageKey struct {
	seq, epoch uint64
	format     string
	size       int
}

// imageCache keeps the last few encodings so a frame is encoded once per
// (frame, format, size) however many clients ask for it.
type imageCache struct {
	mu      sync.Mutex
	max     int
	keys    []imageKey
	entries map[imageKey]*encoded
	// scratch holds downscaled pictures (*image.RGBA) for reuse: each is
	// needed only until it is encoded, and a fresh 4 MB one costs its
	// zeroing and page faults on every new frame.
	scratch sync.Pool
}

func newImageCache(n int) *imageCache {
	return &imageCache{max: n, entries: map[imageKey]*encoded{}}
}

func (c *imageCache) get(k imageKey) *encoded {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[k]
}

func (c *imageCache) put(k imageKey, e *encoded) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; ok {
		return
	}
	if len(c.keys) >= c.max {
		delete(c.entries, c.keys[0])
		c.keys = c.keys[1:]
	}
	c.keys = append(c.keys, k)
	c.entries[k] = e
}

// scaled returns the size of img fitted into maxSize on its longer side.
func scaled(b image.Rectangle, maxSize int) (w, h int) { return control.Fit(b.Dx(), b.Dy(), maxSize) }

// scratchRGBA returns a w×h picture from scratch, or a new one; its pixels
// are whatever they were.
func (c *imageCache) scratchRGBA(w, h int) *image.RGBA {
	if p, ok := c.scratch.Get().(*image.RGBA); ok && cap(p.Pix) >= 4*w*h {
		return &image.RGBA{Pix: p.Pix[:4*w*h], Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
	}
	return image.NewRGBA(image.Rect(0, 0, w, h))
}

// encode returns f's picture in format, scaled to fit maxSize.
func (c *imageCache) encode(f *phone.Frame, format string, maxSize int) (*encoded, error) {
	k := imageKey{seq: f.Seq, epoch: f.Geometry.Epoch, format: format, size: maxSize}
	if e := c.get(k); e != nil {
		return e, nil
	}
	b := f.Image.Bounds()
	w, h := scaled(b, maxSize)
	e := &encoded{width: w, height: h, mime: "image/" + format}
	if format == "jpeg" && f.JPEG != nil && w == b.Dx() && h == b.Dy() {
		e.data = f.JPEG // the source's own JPEG at native size
		c.put(k, e)
		return e, nil
	}
	var img image.Image = f.Image
	if w != b.Dx() || h != b.Dy() {
		small := c.scratchRGBA(w, h)
		defer c.scratch.Put(small)
		img = downscaleInto(small, f.Image)
	}
	data, err := encodeImage(img, format)
	if err != nil {
		return nil, err
	}
	e.data = data
	c.put(k, e)
	return e, nil
}

// encodeImage encodes img as format (jpeg or png) at its size.
func encodeImage(img image.Image, format string) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	if format == "png" {
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	} else {
		err = encodeJPEG(&buf, img, jpegQuality)
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: encode %s screenshot: %w", format, err)
	}
	return buf.Bytes(), nil
}
