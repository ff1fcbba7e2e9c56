package oauth

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openlolo/openlolo/api"
)

// Life is how long a grant lasts, chosen by the owner at approval.
type Life string

// The grant lives the owner can choose.
const (
	Life24h     Life = "24h"     // 24 hours from approval, fixed
	Life30d     Life = "30d"     // 30 days, renewed to now+30 days by each refresh
	LifeForever Life = "forever" // until the owner removes it
)

// valid reports whether l is one of the three lives.
func (l Life) valid() bool { return l == Life24h || l == Life30d || l == LifeForever }

// expiry is when a grant of life l ends if it starts (or is renewed) at now;
// zero for forever.
func (l Life) expiry(now time.Time) time.Time {
	switch l {
	case Life24h:
		return now.Add(24 * time.Hour)
	case Life30d:
		return now.Add(30 * 24 * time.Hour)
	}
	return time.Time{}
}

// clientScopes returns the scopes a client may ask for, in display order.
func clientScopes() []string {
	var out []string
	for _, s := range api.ClientScopes() {
		out = append(out, string(s))
	}
	return out
}

// parseScope parses a space-separated scope parameter into a sorted,
// de-duplicated list. An empty parameter means every client scope.
func parseScope(s string) ([]string, *Error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return clientScopes(), nil
	}
	want := map[string]bool{}
	for _, f := range fields {
		switch f {
		case ScopePhoneRead, ScopePhoneControl:
			want[f] = true
		case ScopeOwnerAdmin:
			return nil, errBadRequest("invalid_scope", "owner:admin is never granted to clients; ask for phone:read and/or phone:control")
		default:
			return nil, errBadRequest("invalid_scope", "unknown scope "+quote(f)+"; the box grants phone:read and phone:control")
		}
	}
	var out []string
	for _, sc := range clientScopes() {
		if want[sc] {
			out = append(out, sc)
		}
	}
	return out, nil
}

// checkClientName accepts 1–100 printable characters that are not all
// spaces.
func checkClientName(name string) *Error {
	n := utf8.RuneCountInString(name)
	if !utf8.ValidString(name) || n < 1 || n > 100 || strings.TrimSpace(name) == "" {
		return errInvalidRequest("client_name must be 1 to 100 printable characters, e.g. \"nightly.py on mac-mini\"")
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return errInvalidRequest("client_name must be 1 to 100 printable characters; it contains a control character")
		}
	}
	return nil
}

// checkClientID accepts what RFC 6749 §A.1 allows in a client_id
// (printable ASCII) without spaces, 1 to 100 characters.
func checkClientID(id string) *Error {
	if len(id) > 100 {
		return errInvalidRequest("client_id must be at most 100 characters")
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= 0x20 || id[i] >= 0x7f {
			return errInvalidRequest("client_id must be printable ASCII without spaces (RFC 6749 appendix A.1)")
		}
	}
	return nil
}

// quote quotes s for an error sentence, cutting it short if long.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return "\"" + strings.ToValidUTF8(s, "?") + "\""
}
