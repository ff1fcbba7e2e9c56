package mcp

import (
	"fmt"
	"image"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/picture"
)

// pages encodes a full page's pictures in the order of its image blocks:
// each page (when sent), then the stitched image composed from the pages'
// strips at a page's scale.
func (h *Handler) pages(p *control.Pages) ([]*picture.Picture, error) {
	var out []*picture.Picture
	if p.Send {
		for _, sh := range p.Shots {
			enc, err := h.ctl.Picture(sh)
			if err != nil {
				return nil, err
			}
			out = append(out, enc)
		}
	}
	if p.Stitch == nil {
		return out, nil
	}
	img, err := stitch(p.Shots, p.Stitch)
	if err != nil {
		return nil, err
	}
	data, err := picture.Encode(img, p.Stitch.Format, control.ShotQuality)
	if err != nil {
		return nil, err
	}
	return append(out, &picture.Picture{Data: data, Format: p.Stitch.Format, Width: p.Stitch.Width, Height: p.Stitch.Height}), nil
}

// stitch composes st from the pages' frames: each page used is scaled to
// st.Width × st.PageHeight once, and its strips' rows are copied in order.
func stitch(shots []control.Shot, st *control.Stitch) (*image.RGBA, error) {
	dst := image.NewRGBA(image.Rect(0, 0, st.Width, st.Height))
	scaledPages := map[int]*image.RGBA{}
	off := 0 // native rows placed so far
	for _, sp := range st.Strips {
		if sp.Page < 0 || sp.Page >= len(shots) {
			return nil, fmt.Errorf("mcp: stitch: strip of page %d of %d", sp.Page, len(shots))
		}
		src, ok := scaledPages[sp.Page]
		if !ok {
			f := shots[sp.Page].Frame.Image
			if b := f.Bounds(); b.Dx() == st.Width && b.Dy() == st.PageHeight {
				src, _ = f.(*image.RGBA)
			}
			if src == nil {
				src = picture.Downscale(f, st.Width, st.PageHeight)
			}
			scaledPages[sp.Page] = src
		}
		d0, d1 := st.Scale(off), st.Scale(off+sp.Y1-sp.Y0)
		s0 := st.Scale(sp.Y0)
		for y := d0; y < d1 && y < st.Height; y++ {
			sy := min(s0+y-d0, src.Rect.Dy()-1)
			copy(dst.Pix[y*dst.Stride:y*dst.Stride+4*st.Width], src.Pix[sy*src.Stride:sy*src.Stride+4*st.Width])
		}
		off += sp.Y1 - sp.Y0
	}
	return dst, nil
}
