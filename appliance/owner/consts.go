package owner

import "time"

// Failure kinds in the store's owner_failures and owner_locks tables.
const (
	kindClaim = "claim"
	kindLogin = "login"
)

// Limits on the claim and login forms.
const (
	claimTries  = 5                // wrong setup codes …
	claimWindow = 10 * time.Minute // … within this window …
	claimLock   = 10 * time.Minute // … lock claiming this long.

	loginTries  = 10          // failed logins …
	loginWindow = time.Minute // … within this window answer 429.

	maxForm = 64 << 10 // bytes in a form body
)
