package owner

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/panel"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/appliance/tmplexec"
	"github.com/openlolo/openlolo/appliance/update"
	"github.com/openlolo/openlolo/phone"
)

// Config is what the box page needs.
type Config struct {
	// Store is the box's database (owner, sessions; the OAuth tables
	// through OAuth).
	Store *store.Store
	// OAuth is the authorization server whose requests and clients the
	// Access page lists and whose browser flow the consent page completes.
	OAuth *oauth.Server
	// Phone is the attached phone, for the Status page's state and
	// problems. It may be nil (the page then says no phone is attached).
	Phone phone.Phone
	// PhoneID is Phone's stable id (as clients name it), which the name
	// the owner gives it on the Status page is kept under; "": the page
	// offers no name for it. Each of Phones has its own ID.
	PhoneID string
	// Phones are the box's phones when it has several, in the box's
	// order: the pages then name the phone on asks and Activity rows,
	// Activity filters by phone, and Status lists them. With none or one,
	// Phone, Screen, Control and Driver are the box's one phone and the
	// pages name none.
	Phones []BoxPhone
	// Screen gives the Status page's pictures (the still picture and the
	// live view) through control; nil: the page shows none.
	Screen Screen
	// Control pauses and resumes input and lists recent operations; nil
	// until the control service exists (the pages then say so). On a box
	// of several phones its Pause and Resume are box-wide (every phone);
	// each of Phones has its own.
	Control Controller
	// Asks is the control service whose asks the pages list and decide
	// and whose marks (what makes the box ask) they keep; nil: the pages
	// offer no asks.
	Asks *control.Service
	// Info describes the box for the Status and Connect pages; nil shows
	// blanks.
	Info func() BoxInfo
	// Tailnet is the remote entry the Settings page shows and switches;
	// nil when the box has none.
	Tailnet Tailnet
	// Visitor returns the tailnet login of a request that came over the
	// remote entry (WhoIs); nil, or false, elsewhere. A visit from the
	// linked login (Settings) is an owner session.
	Visitor func(r *http.Request) (login string, ok bool)
	// Button, when set, carries the presses of the box's button: the
	// claim page then also offers to claim the box by pressing it (proof
	// of presence without the setup code); a short press ([panel.Press])
	// confirms the claim that waits for one. The pages read it until it
	// is closed. nil: claims take the setup code only.
	Button <-chan panel.Event
	// Updater installs signed update bundles from the Settings page; nil
	// when the box does not update itself (the page says so).
	Updater *update.Updater
	// WiFi is the box's Wi-Fi radio and setup network for the Settings
	// page; nil when the box has none (the page says so).
	WiFi WiFi
	// Reset, when set, is the box's factory reset (FactoryReset and the
	// announcement of the new setup code); the Settings page calls it.
	// nil: the page calls FactoryReset itself.
	Reset func(ctx context.Context) error
	// Identity renames the box and remakes its LAN certificate for the
	// Settings page; nil: the page offers neither.
	Identity Identity
	// StateDir is the box's state directory, named in the console
	// commands the pages suggest (openlolo owner reset-passphrase --state
	// DIR); empty shows the placeholder DIR.
	StateDir string
	// SetupCodeFile, when set, also receives the setup code (the SD
	// image's boot partition); it is deleted after the claim.
	SetupCodeFile string
	// HashSlot is shared by every owner page of one box so only one
	// passphrase hash runs at a time in the process; nil: a slot of these
	// pages' own.
	HashSlot HashSlot
	// Trust, when set, is called with the context of each request that
	// carries an owner session, so the entry can keep that connection
	// from being shed for other clients' (entry.Trust); nil: nothing.
	Trust func(ctx context.Context)
	// Live bounds the Status page's live stream; the zero value takes
	// the defaults (see LiveOptions).
	Live LiveOptions
	// Driver runs the owner's own input on the live phone (taps, swipes,
	// typing, buttons, Take over) through the control rules; nil: the
	// Status page offers no input.
	Driver Driver
	// UploadIdle is how long an update upload may go without a byte
	// before it fails; while bytes keep coming, it runs past the
	// server's read timeout. Zero means 60 seconds.
	UploadIdle time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives claim, login and approval events; nil discards.
	Logger *slog.Logger
}

// BoxPhone is one phone of a box of several as the pages show and drive
// it; its fields are as Config's of the same names, for this phone.
type BoxPhone struct {
	// ID is the phone's stable id, as clients name it (phone).
	ID      string
	Phone   phone.Phone
	Screen  Screen
	Control Controller
	Driver  Driver
}

// several reports whether the box has several phones, so the pages name
// the phone of what they show.
func (p *Pages) several() bool { return len(p.cfg.Phones) > 1 }

// phoneIDs are the ids of the box's phones when it has several; nil
// otherwise.
func (p *Pages) phoneIDs() []string {
	if !p.several() {
		return nil
	}
	ids := make([]string, len(p.cfg.Phones))
	for i, ph := range p.cfg.Phones {
		ids[i] = ph.ID
	}
	return ids
}

// BoxInfo describes the box on the Status and Connect pages: its name and
// version as the contract gives them, and its LAN certificate.
type BoxInfo struct {
	api.BoxInfo                  // Name is e.g. "openlolo-1a2b"
	Fingerprint      string      // LAN certificate SHA-256, hex
	FingerprintColon string      // the same with colons, as browsers show it
	SPKIPin          string      // base64 SHA-256 of the public key (curl --pinnedpubkey)
	Backend          api.Backend // the phone backend
	// CertPEM is the LAN certificate (public part only, PEM), served at
	// CertificatePath for clients that trust the box by its certificate
	// (NODE_EXTRA_CA_CERTS) rather than by a pin.
	CertPEM []byte
}

// Controller is what the pages need from the control service. An adapter
// in the appliance package implements it over control.Service.
type Controller interface {
	// Pause stops all input at once; by names who asked ("owner"). The
	// owner's pause is lifted only by the owner's Resume, never by a
	// client.
	Pause(ctx context.Context, by string) error
	// Resume lets input run again, whoever paused it.
	Resume(ctx context.Context, by string) error
	// Lease says who holds control now.
	Lease() control.LeaseState
	// Recent returns the n most recent operations and actions (pause,
	// resume, ...), newest first.
	Recent(ctx context.Context, n int) ([]Activity, error)
}

// Activity is one operation as the Activity page shows it. It carries no
// secrets (no typed text, no images).
type Activity struct {
	Time    time.Time
	Client  string
	Tool    string
	Outcome string
	Code    string // error code when it failed
	// Action, for a row that is not a tool call, is what was done
	// ("pause", "resume", ...) and Detail says it in words; Client is then
	// who did it ("owner" or a client's name).
	Action string
	Detail string
	// Summary is a call's arguments in words, without secrets.
	Summary string
	// RunID and RunTitle name the run a call is a step of.
	RunID, RunTitle string
	// Phone is the id of the phone the row is about; "" for the box's own
	// actions (logins, approvals) and for every phone at once.
	Phone string
	// OperationID is the journaled operation's id ("" for other rows),
	// and ClientID the client it belongs to (operation ids are per
	// client); ThumbWidth and ThumbHeight, when not 0, are the size of
	// the thumbnail of the screen after the input, served at ThumbPath.
	OperationID, ClientID   string
	ThumbWidth, ThumbHeight int
}

// ThumbPath is where the row's thumbnail is served.
func (a Activity) ThumbPath() string {
	p := "/activity/thumb/" + url.PathEscape(a.OperationID)
	if a.ClientID != "" {
		p += "?client=" + url.QueryEscape(a.ClientID)
	}
	return p
}

// Pages is the box page.
type Pages struct {
	cfg    Config
	st     *store.Store
	now    func() time.Time
	log    *slog.Logger
	hashMu HashSlot                   // one argon2 hash at a time: each takes 64 MiB
	cop    http.CrossOriginProtection // refuses cross-origin POSTs (sameOrigin)
	tmpl   map[string]*tmplexec.Set
	// verify, in tests, checks each rendering against html/template's.
	verify func(page, entry string, data any, got []byte, err error)

	presence *presence // the claim waiting for the button; nil without Config.Button

	phones []*pagePhone // the phones the pages drive (phones.go); never empty
}

// New checks cfg and returns the box page.
func New(cfg Config) (*Pages, error) {
	if cfg.Store == nil {
		return nil, errors.New("owner: Config.Store is required")
	}
	if cfg.OAuth == nil {
		return nil, errors.New("owner: Config.OAuth is required")
	}
	p := &Pages{cfg: cfg, st: cfg.Store, now: cfg.Now, log: cfg.Logger, hashMu: cfg.HashSlot}
	if p.now == nil {
		p.now = time.Now
	}
	if p.hashMu == nil {
		p.hashMu = NewHashSlot()
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.phones = p.pagePhones()
	if err := p.parseTemplates(); err != nil {
		return nil, err
	}
	p.watchButton()
	return p, nil
}
