package ddi

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

// TSSURL is Apple's signing server.
const TSSURL = "https://gs.apple.com/TSS/controller?action=2"

// Identifiers are what the phone's mounter says about its chip
// (QueryPersonalizationIdentifiers) plus its ECID.
type Identifiers struct {
	BoardID, ChipID, SecurityDomain uint64
	ECID                            uint64
	// Extra are the "Ap,…" identifiers, passed to TSS as they are.
	Extra plist.Dict
}

// personalization are the device parameters the manifest's
// RestoreRequestRules are evaluated against: developer disk images are
// always personalized for a production, secure, Image4 device.
var personalization = map[string]any{"ApProductionMode": true, "ApSecurityMode": true, "ApSupportsImg4": true}

// ruleParam maps a rule condition to the parameter it reads.
var ruleParam = map[string]string{
	"ApRawProductionMode": "ApProductionMode", "ApCurrentProductionMode": "ApProductionMode",
	"ApRawSecurityMode": "ApSecurityMode", "ApRequiresImage4": "ApSupportsImg4",
}

// applyRules sets the actions of every rule whose conditions hold (EPRO,
// ESEC: modern manifests carry no literal values). An unknown condition
// makes the rule not apply; the action value 255 means "leave as is".
func applyRules(entry plist.Dict, rules []any) plist.Dict {
	for _, r := range rules {
		rule, _ := r.(plist.Dict)
		ok := true
		for _, c := range rule.Dict("Conditions") {
			param, known := ruleParam[c.Key]
			if !known || personalization[param] != c.Value {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		for _, a := range rule.Dict("Actions") {
			if n, isInt := a.Value.(uint64); isInt && n == 255 {
				continue
			}
			entry = entry.Set(a.Key, a.Value)
		}
	}
	return entry
}

// TSSRequest is the signing request for id on the phone with ids and its
// boot nonce. uuid names the request (random when nil).
func TSSRequest(id Identity, ids Identifiers, nonce []byte, uuid string) plist.Dict {
	if uuid == "" {
		var u [16]byte
		rand.Read(u[:])
		uuid = fmt.Sprintf("%X-%X-%X-%X-%X", u[0:4], u[4:6], u[6:8], u[8:10], u[10:])
	}
	req := plist.Dict{
		{Key: "@ApImg4Ticket", Value: true},
		{Key: "@BBTicket", Value: true},
		{Key: "@HostPlatformInfo", Value: "mac"},
		{Key: "@UUID", Value: uuid},
		{Key: "@VersionInfo", Value: "libauthinstall-1104.0.9"},
		{Key: "ApBoardID", Value: ids.BoardID},
		{Key: "ApChipID", Value: ids.ChipID},
		{Key: "ApECID", Value: ids.ECID},
		{Key: "ApNonce", Value: nonce},
		{Key: "ApProductionMode", Value: true},
		{Key: "ApSecurityDomain", Value: ids.SecurityDomain},
		{Key: "ApSecurityMode", Value: true},
		{Key: "SepNonce", Value: make([]byte, 20)},
		{Key: "UID_MODE", Value: false},
	}
	// The trust cache's rules decide EPRO/ESEC for every component.
	rules := id.Manifest.Dict("LoadableTrustCache").Dict("Info").Array("RestoreRequestRules")
	for _, c := range id.Manifest {
		comp, _ := c.Value.(plist.Dict)
		if !comp.Bool("Trusted") {
			continue
		}
		e := plist.Dict{{Key: "Digest", Value: comp.Data("Digest")}, {Key: "Trusted", Value: true}}
		for _, k := range []string{"EPRO", "ESEC"} {
			if v, ok := comp.Get(k); ok {
				e = e.Set(k, v)
			}
		}
		e = applyRules(e, rules)
		if c.Key == "PersonalizedDMG" || c.Key == "PersonalizedDmg" {
			name := comp.String("Name")
			if name == "" {
				name = "DeveloperDiskImage"
			}
			e = e.Set("Name", name)
		}
		req = append(req, plist.Entry{Key: c.Key, Value: e})
	}
	req = append(req, ids.Extra...)
	return req
}

// TSSError is a refusal from the signing server.
type TSSError struct {
	Status  int
	Message string
}

func (e *TSSError) Error() string {
	return fmt.Sprintf("ddi: Apple's signing server refused (status %d: %s)", e.Status, e.Message)
}

// ParseTSSResponse reads STATUS=…&MESSAGE=…&REQUEST_STRING=<plist> and
// returns the ApImg4Ticket.
func ParseTSSResponse(body []byte) ([]byte, error) {
	s := string(body)
	field := func(name string) (string, bool) {
		i := strings.Index(s, name+"=")
		if i < 0 {
			return "", false
		}
		v := s[i+len(name)+1:]
		if name != "REQUEST_STRING" { // the plist runs to the end
			if j := strings.IndexByte(v, '&'); j >= 0 {
				v = v[:j]
			}
		}
		return v, true
	}
	st, ok := field("STATUS")
	if !ok {
		return nil, fmt.Errorf("%w: the signing server's answer has no STATUS", ErrMalformed)
	}
	status, err := strconv.Atoi(st)
	if err != nil {
		return nil, fmt.Errorf("%w: STATUS %q", ErrMalformed, st)
	}
	msg, _ := field("MESSAGE")
	if status != 0 {
		return nil, &TSSError{Status: status, Message: msg}
	}
	rs, ok := field("REQUEST_STRING")
	if !ok {
		return nil, fmt.Errorf("%w: the signing server's answer has no REQUEST_STRING", ErrMalformed)
	}
	d, err := plist.UnmarshalDict([]byte(rs))
	if err != nil {
		return nil, fmt.Errorf("ddi: the signing server's ticket: %w", err)
	}
	t := d.Data("ApImg4Ticket")
	if t == nil {
		return nil, fmt.Errorf("%w: no ApImg4Ticket in the signing server's answer", ErrMalformed)
	}
	return t, nil
}

// TSS asks Apple's signing server for tickets. The zero value uses
// TSSURL and a client with a one-minute timeout.
type TSS struct {
	URL    string       // "" means TSSURL
	Client *http.Client // nil means one with a one-minute timeout
}

// Sign sends req and returns the ticket.
func (t TSS) Sign(ctx context.Context, req plist.Dict) ([]byte, error) {
	body, err := plist.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("ddi: encode the signing request: %w", err)
	}
	url := t.URL
	if url == "" {
		url = TSSURL
	}
	hc := t.Client
	if hc == nil {
		hc = &http.Client{Timeout: time.Minute}
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("ddi: signing request: %w", err)
	}
	hr.Header.Set("Content-Type", `text/xml; charset="utf-8"`)
	hr.Header.Set("User-Agent", "InetURL/1.0")
	res, err := hc.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("ddi: reach Apple's signing server (the box needs the internet after every restart of the phone): %w", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("ddi: read the signing server's answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("ddi: Apple's signing server answered HTTP %d", res.StatusCode)
	}
	return ParseTSSResponse(b)
}
