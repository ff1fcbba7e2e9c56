package update

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Release is what a root says about itself in /etc/openlolo-release.
type Release struct {
	Version string
	Board   string
	Built   int64 // Unix seconds, as a bundle's Manifest.Built
}

// ParseRelease reads /etc/openlolo-release (KEY=value lines).
func ParseRelease(b []byte) (Release, error) {
	var r Release
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"`)
		switch k {
		case "VERSION":
			r.Version = v
		case "BOARD":
			r.Board = v
		case "BUILT":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return r, fmt.Errorf("update: openlolo-release: BUILT=%q is not a number", v)
			}
			r.Built = n
		}
	}
	if r.Version == "" || r.Board == "" {
		return r, fmt.Errorf("update: openlolo-release: VERSION and BOARD are required, got %+v", r)
	}
	return r, nil
}
