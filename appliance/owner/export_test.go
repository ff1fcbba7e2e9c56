package owner

import "github.com/openlolo/openlolo/hw/phone"

// LiveWatching reports the live stream's open viewers, whether its
// capture loop runs, and how many screenshots it has taken.
func (p *Pages) LiveWatching() (viewers int, capturing bool, captures uint64) {
	viewers, capturing = p.live.watching()
	captures, _ = p.live.stats()
	return viewers, capturing, captures
}

// ScaleJPEG is the live stream's fallback encoder.
func ScaleJPEG(f *phone.Frame, maxSize, quality int) ([]byte, error) {
	return scaleJPEG(f, maxSize, quality)
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
