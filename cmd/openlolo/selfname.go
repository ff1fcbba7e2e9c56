package main

import (
	"os"
	"path/filepath"
	"strings"
)

// selfName is how the person can run this program again, for the
// commands it prints ("Try: openlolo call …"): the bare name "openlolo"
// when the PATH in c.Env finds this very executable under that name, else
// its absolute path (a checkout's bin/openlolo is never on PATH).
func selfName(c *Context) string {
	if c.Executable == "" {
		return "openlolo"
	}
	self, err := os.Stat(c.Executable)
	if err != nil {
		return shellQuote(c.Executable)
	}
	for _, dir := range filepath.SplitList(c.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue // the shell would run a relative entry only from one folder
		}
		fi, err := os.Stat(filepath.Join(dir, "openlolo"))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		if os.SameFile(fi, self) {
			return "openlolo"
		}
		break // PATH runs another openlolo first
	}
	return shellQuote(c.Executable)
}

// shellQuote quotes s for a POSIX shell when it holds more than safe
// characters.
func shellQuote(s string) string {
	safe := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%", r)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
