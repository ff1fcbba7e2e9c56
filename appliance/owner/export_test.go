package owner

import (
	"testing"

	"context"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/phone"
)

// LiveWatching reports the live stream's open viewers, whether its
// capture loop runs, and how many screenshots it has taken.
func (p *Pages) LiveWatching() (viewers int, capturing bool, captures uint64) {
	return p.LiveWatchingOf(0)
}

// LiveWatchingOf is LiveWatching of the live stream of the box's i-th
// phone.
func (p *Pages) LiveWatchingOf(i int) (viewers int, capturing bool, captures uint64) {
	live := p.phones[i].live
	viewers, capturing = live.watching()
	captures, _ = live.stats()
	return viewers, capturing, captures
}

// PhoneScreen is a Screen straight over a phone, with a picture cache of
// its own: what control.Service's Screen does, for the pages' tests
// without a control service.
func PhoneScreen(ph phone.Phone) Screen { return phoneScreen{ph, picture.NewCache(4)} }

type phoneScreen struct {
	ph    phone.Phone
	cache *picture.Cache
}

func (s phoneScreen) Screen(ctx context.Context, fit picture.Box, quality int) (*picture.Picture, error) {
	f, err := s.ph.Screenshot(ctx)
	if err != nil {
		return nil, err
	}
	return s.cache.Encode(picture.Frame{Seq: f.Seq, Epoch: f.Geometry.Epoch, Image: f.Image, JPEG: f.JPEG},
		picture.Spec{Format: api.FormatJPEG, Fit: fit, Quality: quality})
}

// RouteAccess is the route table: each pattern with who may call it
// (files, anyone, claiming, visitor, owner, asset, upload).
func RouteAccess(p *Pages) map[string]string {
	names := map[access]string{files: "files", anyone: "anyone", claiming: "claiming", visitor: "visitor",
		ownerOnly: "owner", ownerAsset: "asset", ownerUpload: "upload"}
	out := map[string]string{}
	for _, rt := range p.routes() {
		out[rt.pattern] = names[rt.who]
	}
	return out
}

// MaxBundle is the largest update upload the Settings page takes.
const MaxBundle = maxBundle

// VerifyRendering has p check every page it renders against
// html/template's rendering of the same data (see escaped_internal_test.go).
func VerifyRendering(t testing.TB, p *Pages) { verifyRendering(t, p) }
