package picture

import (
	"errors"
	"image"
	"sync"

	"github.com/openlolo/openlolo/api"
)

// Frame is a picture to encode with what identifies it: two frames with
// the same Seq and Epoch show the same pixels (a phone frame's Seq and
// geometry epoch), so the cache encodes them once.
type Frame struct {
	Seq, Epoch uint64
	// Image is the picture at native size.
	Image image.Image
	// JPEG, when not nil, is the picture already encoded at native size
	// by its source (a capture device's MJPEG): a JPEG wanted at native
	// size is this one, at the source's quality.
	JPEG []byte
}

// Spec is how a picture is wanted.
type Spec struct {
	Format  api.ImageFormat // jpeg or png
	Fit     Box             // the room it is fitted into
	Quality int             // JPEG quality, 1..100 (PNG has none)
}

// Picture is an encoded picture.
type Picture struct {
	// Seq and Epoch are the frame's it was made from.
	Seq, Epoch    uint64
	Format        api.ImageFormat
	Width, Height int
	Data          []byte
}

// MIME is the picture's media type (image/jpeg, image/png).
func (p *Picture) MIME() string { return "image/" + string(p.Format) }

// ErrEmpty is the error of a frame without pixels.
var ErrEmpty = errors.New("picture: the frame is empty")

type cacheKey struct {
	seq, epoch uint64
	spec       Spec
}

// Cache keeps the last few pictures encoded, so a frame is encoded once
// per Spec however many callers ask for it. It is safe for concurrent
// use.
type Cache struct {
	mu      sync.Mutex
	max     int
	keys    []cacheKey // oldest first
	entries map[cacheKey]*Picture
	// scratch holds downscaled pictures (*image.RGBA) for reuse: each is
	// needed only until it is encoded, and a fresh 4 MB one costs its
	// zeroing and page faults on every new frame.
	scratch sync.Pool

	// jpeg, when set, encodes JPEG pictures (UseJPEGEncoder); jpegFails
	// counts its failures in a row. Guarded by mu.
	jpeg      JPEGEncoder
	jpegFails int
	onFail    func(err error, dropped bool)
}

// JPEGEncoder is a JPEG encoder besides the binary's own: a hardware one
// (hw/capture's JPEGEncoder, on a V4L2 memory-to-memory device).
type JPEGEncoder interface {
	// EncodeJPEG encodes img at quality (1..100).
	EncodeJPEG(img *image.RGBA, quality int) ([]byte, error)
}

// MaxJPEGFailures is how many failures in a row of a JPEGEncoder make a
// Cache stop using it and encode in software from then on.
const MaxJPEGFailures = 3

// UseJPEGEncoder has c encode its JPEG pictures of RGBA images (every
// scaled picture) with e. A picture e fails to encode is encoded in
// software, and after MaxJPEGFailures failures in a row c no longer asks
// e. onFail, when not nil, hears each failure and whether it dropped e.
func (c *Cache) UseJPEGEncoder(e JPEGEncoder, onFail func(err error, dropped bool)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.jpeg, c.jpegFails, c.onFail = e, 0, onFail
}

// encode encodes img as s asks: through the JPEGEncoder when there is
// one and it can take img, in software otherwise or when it fails.
func (c *Cache) encode(img image.Image, s Spec) ([]byte, error) {
	c.mu.Lock()
	hw, onFail := c.jpeg, c.onFail
	c.mu.Unlock()
	rgba, ok := img.(*image.RGBA)
	if hw == nil || !ok || s.Format != api.FormatJPEG {
		return Encode(img, s.Format, s.Quality)
	}
	data, err := hw.EncodeJPEG(rgba, s.Quality)
	c.mu.Lock()
	dropped := false
	switch {
	case err == nil:
		c.jpegFails = 0
	case c.jpeg == hw:
		c.jpegFails++
		if dropped = c.jpegFails >= MaxJPEGFailures; dropped {
			c.jpeg = nil
		}
	}
	c.mu.Unlock()
	if err == nil {
		return data, nil
	}
	if onFail != nil {
		onFail(err, dropped)
	}
	return Encode(img, s.Format, s.Quality)
}

// NewCache returns a cache of the n pictures encoded last.
func NewCache(n int) *Cache {
	return &Cache{max: max(n, 1), entries: map[cacheKey]*Picture{}}
}

func (c *Cache) get(k cacheKey) *Picture {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[k]
}

func (c *Cache) put(k cacheKey, p *Picture) {
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
	c.entries[k] = p
}

// scratchRGBA returns a w×h picture from scratch, or a new one; its pixels
// are whatever they were.
func (c *Cache) scratchRGBA(w, h int) *image.RGBA {
	p, _ := c.scratch.Get().(*image.RGBA)
	return reuseRGBA(p, w, h)
}

// reuseRGBA is a w×h picture over p's pixels when they are large enough
// (whatever they were), a new one otherwise.
func reuseRGBA(p *image.RGBA, w, h int) *image.RGBA {
	if p != nil && cap(p.Pix) >= 4*w*h {
		return &image.RGBA{Pix: p.Pix[:4*w*h], Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
	}
	return image.NewRGBA(image.Rect(0, 0, w, h))
}

// Encode returns f as s asks: fitted into s.Fit and encoded, or the
// source's own JPEG when a JPEG is wanted at native size. An earlier
// encoding of the same frame and Spec is returned as it is (the same
// *Picture; callers must not change it).
func (c *Cache) Encode(f Frame, s Spec) (*Picture, error) {
	if f.Image == nil || f.Image.Bounds().Empty() {
		return nil, ErrEmpty
	}
	k := cacheKey{seq: f.Seq, epoch: f.Epoch, spec: s}
	if p := c.get(k); p != nil {
		return p, nil
	}
	b := f.Image.Bounds()
	w, h := s.Fit.Fit(b.Dx(), b.Dy())
	p := &Picture{Seq: f.Seq, Epoch: f.Epoch, Format: s.Format, Width: w, Height: h}
	native := w == b.Dx() && h == b.Dy()
	if s.Format == api.FormatJPEG && f.JPEG != nil && native {
		p.Data = f.JPEG
		c.put(k, p)
		return p, nil
	}
	img := f.Image
	if !native {
		small := c.scratchRGBA(w, h)
		defer c.scratch.Put(small)
		// The block averages of a large reduction go to scratch too.
		reduced, _ := c.scratch.Get().(*image.RGBA)
		if used := scale(small, f.Image, reduced); used != nil {
			defer c.scratch.Put(used)
		} else if reduced != nil {
			c.scratch.Put(reduced)
		}
		img = small
	}
	data, err := c.encode(img, s)
	if err != nil {
		return nil, err
	}
	p.Data = data
	c.put(k, p)
	return p, nil
}
