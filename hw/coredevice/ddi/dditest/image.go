package dditest

import (
	"crypto/sha512"
	"fmt"
	"os"
	"path/filepath"

	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

// WriteImage writes a disk image folder as Xcode's Restore folder looks:
// BuildManifest.plist with one build identity for board and chip (the
// image, its trust cache whose RestoreRequestRules set EPRO and ESEC, and
// an untrusted component), Image.dmg and Image.dmg.trustcache.
func WriteImage(dir string, board, chip uint64, image, trustCache []byte) error {
	digest := func(b []byte) []byte { s := sha512.Sum384(b); return s[:] }
	rules := []any{
		plist.Dict{{Key: "Actions", Value: plist.Dict{{Key: "EPRO", Value: true}}}, {Key: "Conditions", Value: plist.Dict{{Key: "ApRawProductionMode", Value: true}, {Key: "ApRequiresImage4", Value: true}}}},
		plist.Dict{{Key: "Actions", Value: plist.Dict{{Key: "ESEC", Value: true}}}, {Key: "Conditions", Value: plist.Dict{{Key: "ApRawSecurityMode", Value: true}, {Key: "ApRequiresImage4", Value: true}}}},
		plist.Dict{{Key: "Actions", Value: plist.Dict{{Key: "EPRO", Value: false}}}, {Key: "Conditions", Value: plist.Dict{{Key: "ApInRomDFU", Value: true}}}},
	}
	m := plist.Dict{
		{Key: "BuildIdentities", Value: []any{plist.Dict{
			{Key: "ApBoardID", Value: fmt.Sprintf("0x%02X", board)},
			{Key: "ApChipID", Value: fmt.Sprintf("0x%04X", chip)},
			{Key: "Manifest", Value: plist.Dict{
				{Key: "LoadableTrustCache", Value: plist.Dict{
					{Key: "Digest", Value: digest(trustCache)}, {Key: "Trusted", Value: true},
					{Key: "Info", Value: plist.Dict{{Key: "Path", Value: "Image.dmg.trustcache"}, {Key: "RestoreRequestRules", Value: rules}}},
				}},
				{Key: "PersonalizedDMG", Value: plist.Dict{
					{Key: "Digest", Value: digest(image)}, {Key: "Trusted", Value: true},
					{Key: "Info", Value: plist.Dict{{Key: "Path", Value: "Image.dmg"}}},
				}},
				{Key: "Manifest", Value: plist.Dict{{Key: "Digest", Value: []byte{1, 2}}, {Key: "Trusted", Value: false}}},
			}},
		}}},
		{Key: "ProductBuildVersion", Value: "27A5000"},
	}
	b, err := plist.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"BuildManifest.plist": b, "Image.dmg": image, "Image.dmg.trustcache": trustCache} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
