// Package waittest waits, in tests, on what cannot tell the test when it
// is done: a real process, socket server or kernel. It checks a condition
// on a ticker until a deadline, so no test sleeps to wait (scripts'
// sleeps_test.go counts the sleeps that remain).
package waittest

import "time"

// Until checks cond at once and then every tick until it holds or limit
// passes, and reports whether it held.
func Until(limit, tick time.Duration, cond func() bool) bool {
	t := time.NewTicker(tick)
	defer t.Stop()
	deadline := time.After(limit)
	for !cond() {
		select {
		case <-t.C:
		case <-deadline:
			return cond()
		}
	}
	return true
}
