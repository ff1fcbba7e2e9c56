package owner

// Failure kinds in the store's owner_failures and owner_locks tables.
const (
	kindClaim = "claim"
	kindLogin = "login"
)
