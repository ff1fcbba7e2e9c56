package ddi

import (
	"crypto/sha512"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

// Image is a personalized developer disk image on disk: Xcode's Restore
// folder with BuildManifest.plist, the image and its trust cache.
type Image struct {
	Dir      string     // the Restore folder
	Manifest plist.Dict // BuildManifest.plist
}

// LoadImage reads dir/BuildManifest.plist.
func LoadImage(dir string) (*Image, error) {
	b, err := os.ReadFile(filepath.Join(dir, "BuildManifest.plist"))
	if err != nil {
		return nil, fmt.Errorf("ddi: the disk image: %w", err)
	}
	m, err := plist.UnmarshalDict(b)
	if err != nil {
		return nil, fmt.Errorf("ddi: BuildManifest.plist: %w", err)
	}
	if len(m.Array("BuildIdentities")) == 0 {
		return nil, fmt.Errorf("%w: BuildManifest.plist has no BuildIdentities", ErrMalformed)
	}
	return &Image{Dir: dir, Manifest: m}, nil
}

// Identity is one build identity of the manifest: the components for one
// board and chip.
type Identity struct {
	BoardID, ChipID uint64
	Manifest        plist.Dict // component name → {Digest, Trusted, Info{Path, RestoreRequestRules}, …}
}

// hexID parses "0x0C" as the manifest spells board and chip ids.
func hexID(s string) (uint64, bool) {
	n, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "0x"), 16, 64)
	return n, err == nil
}

// Identity returns the build identity for a board and chip.
func (img *Image) Identity(board, chip uint64) (Identity, error) {
	for _, v := range img.Manifest.Array("BuildIdentities") {
		d, _ := v.(plist.Dict)
		b, okb := hexID(d.String("ApBoardID"))
		c, okc := hexID(d.String("ApChipID"))
		if okb && okc && b == board && c == chip {
			return Identity{BoardID: b, ChipID: c, Manifest: d.Dict("Manifest")}, nil
		}
	}
	return Identity{}, fmt.Errorf("ddi: the disk image has no build for this phone (board 0x%x, chip 0x%x): use a newer Xcode's image", board, chip)
}

// path is a component's file inside the Restore folder.
func (id Identity) path(dir string, names ...string) (string, error) {
	for _, n := range names {
		if p := id.Manifest.Dict(n).Dict("Info").String("Path"); p != "" {
			if !filepath.IsLocal(p) {
				return "", fmt.Errorf("%w: %s path %q leaves the image folder", ErrMalformed, n, p)
			}
			return filepath.Join(dir, p), nil
		}
	}
	return "", fmt.Errorf("%w: the manifest names no %s", ErrMalformed, names[0])
}

// ImagePath is the disk image file of id.
func (img *Image) ImagePath(id Identity) (string, error) {
	return id.path(img.Dir, "PersonalizedDMG", "PersonalizedDmg")
}

// TrustCachePath is the image's trust cache file.
func (img *Image) TrustCachePath(id Identity) (string, error) {
	return id.path(img.Dir, "LoadableTrustCache")
}

// Digest is the SHA-384 of the image file, which the phone keys its
// stored personalization on.
func Digest(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ddi: %w", err)
	}
	defer f.Close()
	h := sha512.New384()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("ddi: hash the image: %w", err)
	}
	return h.Sum(nil), nil
}
