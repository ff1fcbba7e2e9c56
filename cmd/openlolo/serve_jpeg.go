package main

import (
	"errors"
	"log/slog"
	"strings"

	"github.com/openlolo/openlolo/hw/capture"
)

// JPEG encoder choices of serve --jpeg-encoder besides a device path.
const (
	jpegAuto     = "auto"     // a hardware encoder when the kernel offers one
	jpegSoftware = "software" // the binary's own encoder always
)

// openJPEG opens the JPEG encoder --jpeg-encoder names: for auto, the V4L2
// memory-to-memory encoder capture.FindEncoder finds (nil, and a log line
// saying why, when there is none: pictures are then encoded in software);
// for a /dev path, that node, which must be one; for software, none. The
// caller closes what it returns.
func openJPEG(choice, sysDir string, log *slog.Logger) (*capture.JPEGEncoder, error) {
	var (
		enc capture.Encoder
		err error
	)
	switch {
	case choice == jpegSoftware:
		return nil, nil
	case choice == jpegAuto:
		if enc, err = capture.FindEncoder(sysDir); err != nil {
			if errors.Is(err, capture.ErrNoEncoder) {
				log.Info("pictures are encoded in software: the kernel offers no hardware JPEG encoder", "why", err)
				return nil, nil
			}
			return nil, err
		}
	case strings.HasPrefix(choice, "/dev/"):
		if enc, err = capture.EncoderAt(choice); err != nil {
			return nil, usagef("--jpeg-encoder %s: %v; give another node, auto or software", choice, err)
		}
	default:
		return nil, usagef("--jpeg-encoder %q: give auto, software or a video node such as /dev/video31", choice)
	}
	j, err := capture.OpenJPEGEncoder(enc)
	if err != nil {
		if choice == jpegAuto {
			log.Warn("pictures are encoded in software: the hardware JPEG encoder does not open", "err", err)
			return nil, nil
		}
		return nil, err
	}
	log.Info("pictures are encoded on the hardware JPEG encoder", "device", enc.Path, "driver", enc.Driver, "card", enc.Card, "input", enc.Input.String())
	return j, nil
}
