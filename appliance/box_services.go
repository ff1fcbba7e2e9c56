package appliance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/entry"
	"github.com/openlolo/openlolo/appliance/mcp"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/ocr"
	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/profiles"
)

// routes makes the services and registers them on the box's mux.
func (b *Box) routes(steps *startupSteps) error {
	var err error
	b.oauth, err = oauth.New(oauth.Config{
		Store:           b.store,
		Entry:           "lan",
		VerificationURI: b.verificationURI,
		Logger:          b.log.With("service", "oauth"),
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	// The owner's app profiles sit beside the database; a bad file is
	// logged and the shipped profiles are served.
	apps, err := profiles.Open(filepath.Join(b.cfg.StateDir, profiles.FileName), b.log.With("service", "profiles"))
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	b.control, err = control.New(b.life, control.Config{
		Store:  b.store,
		Phone:  b.cfg.Phone,
		Phones: b.cfg.Phones,
		Grants: b.oauth,
		Logger: b.log.With("service", "control"),
		// The tesseract program the image ships; where it is missing,
		// openlolo_find_text says what to install.
		OCR:      ocr.Tesseract{},
		Profiles: apps,
		JPEG:     b.cfg.JPEG,
		// The LED blinks while an ask waits for the owner (presence.go).
		AskChanged: func() {
			if b.panel != nil {
				b.panel.poke()
			}
		},
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	steps.done("control")
	if b.remote, err = b.newRemote(b.life); err != nil {
		return err
	}
	b.panel = b.newPanel()
	b.hashes = owner.NewHashSlot()
	steps.done("remote entry")
	b.owner, err = owner.New(owner.Config{
		HashSlot:      b.hashes,
		Updater:       b.updater,
		Button:        b.panel.presses,
		Tailnet:       b.remote,
		Store:         b.store,
		OAuth:         b.oauth,
		Phone:         b.cfg.Phone,
		PhoneID:       b.control.ID(),
		Phones:        boxPhones(b.control),
		Control:       boxController(b.control),
		Driver:        controller{s: b.control},
		Screen:        b.control,
		Asks:          b.control,
		Info:          b.Info,
		SetupCodeFile: b.cfg.SetupCodeFile,
		StateDir:      b.cfg.StateDir,
		Reset:         b.factoryReset,
		Identity:      identities{b},
		WiFi:          b.cfg.WiFi,
		Live:          owner.LiveOptions{FPS: b.liveFPS()},
		Trust:         entry.Trust,
		Logger:        b.log.With("service", "owner"),
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	steps.done("owner pages")
	b.mcp, err = mcp.New(mcp.Config{
		Control: b.control,
		Info:    b.boxInfo,
		Remote:  b.remoteEntry,
		Logger:  b.log.With("service", "mcp"),
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	steps.done("mcp")
	b.mux.HandleFunc("GET /healthz", b.healthz)
	b.oauth.Routes(b.mux)
	b.owner.Routes(b.mux)
	b.mcp.Routes(b.mux, b.oauth.Middleware)
	b.mcp.DiscoveryRoutes(b.mux, b.oauth.Issuer)
	return b.remote.mount()
}

func (b *Box) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(struct {
		Status  string `json:"status"`
		Version string `json:"version"`
	}{"ok", b.cfg.Version})
}
