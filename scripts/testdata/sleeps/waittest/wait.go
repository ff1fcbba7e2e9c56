// Package waittest is a test helper package.
package waittest

import "time"

// Wait sleeps.
func Wait() {
	// The helper has no reason.
	time.Sleep(time.Second)
}
