package control

import (
	"bytes"
	"context"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/phone"
)

// ShotQuality is the JPEG quality of screenshots sent to clients.
const ShotQuality = 80

// pictureCache is how many encoded pictures the box keeps: a few sizes
// and formats of the newest frames (screenshots, the live view, the
// Status page's still picture).
const pictureCache = 8

// frameOf is f as the picture package takes it.
func frameOf(f *phone.Frame) picture.Frame {
	return picture.Frame{Seq: f.Seq, Epoch: f.Geometry.Epoch, Image: f.Image, JPEG: f.JPEG}
}

// Picture is sh encoded as it is to be sent: in its Format, fitted into
// its MaxSize on the longer side, JPEG at ShotQuality. A frame is encoded
// once per way it is asked for, whoever asks.
func (s *Service) Picture(sh Shot) (*picture.Picture, error) {
	return s.pictures.Encode(frameOf(sh.Frame), picture.Spec{Format: sh.Format, Fit: picture.Square(sh.MaxSize), Quality: ShotQuality})
}

// Screen is the phone's newest screen as a JPEG fitted into fit, at
// quality, for the box page's still picture and live view. It becomes the
// owner's latest frame (the one the owner's touches on the page name) and
// goes through the same cache as screenshots: an unchanged screen is not
// encoded again.
//
// A phone that lends its frames ([phone.Lender]) is read through a lent
// frame: the picture is encoded while it is lent, and nothing of the
// frame is kept.
func (s *Service) Screen(ctx context.Context, fit picture.Box, quality int) (*picture.Picture, error) {
	spec := picture.Spec{Format: api.FormatJPEG, Fit: fit, Quality: quality}
	l, ok := s.ph.(phone.Lender)
	if !ok {
		shot, err := s.TakeFrame(ctx, Owner())
		if err != nil {
			return nil, err
		}
		return s.pictures.Encode(frameOf(shot.Frame), spec)
	}
	var (
		pic    *picture.Picture
		encErr error
	)
	err := l.LendScreenshot(ctx, func(f *phone.Frame) error {
		s.recordFrame(Owner(), f)
		lent := frameOf(f)
		// A picture passed through as the source's JPEG would share
		// the lent bytes.
		lent.JPEG = bytes.Clone(lent.JPEG)
		pic, encErr = s.pictures.Encode(lent, spec)
		return nil
	})
	if err != nil {
		return nil, PhoneError(err)
	}
	return pic, encErr
}
