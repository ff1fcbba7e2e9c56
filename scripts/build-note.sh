#!/bin/sh
# Says before a long build that it is one (make build and make run call it).
# On an empty Go build cache (a fresh clone, or after go clean -cache) the
# build first compiles SQLite's C amalgamation through cgo (one 9.6 MB C
# file, on one core, on the critical path) and tailscale.com's 180 packages
# (the bulk of the other core's work): about 11 minutes on 2 cores, once.
# Later builds reuse the cache and take seconds. Quiet when the cache has
# them; the check takes about half a second and downloads nothing.
#   build-note.sh 'BUILD TAGS'
tags=${1:-}
go=${GO:-go}
if stale=$(GOPROXY=off $go list -trimpath -tags "$tags" -f '{{if .Stale}}{{.ImportPath}}{{end}}' \
	github.com/mattn/go-sqlite3 tailscale.com/tsnet 2>/dev/null); then
	[ -z "$stale" ] && exit 0
	why="Go's build cache ($($go env GOCACHE)) does not have them yet"
else
	why="the Go modules are not downloaded yet; go build fetches them first (42 modules, about 95 MB)"
fi
cat <<MSG
note: this is a first build: $why.
      go build compiles SQLite's C amalgamation (cgo, one 9.6 MB C file) and
      tailscale.com's 180 packages before openlolo itself, printing nothing
      meanwhile: about 11 minutes on 2 cores, once. Later builds take seconds.
MSG
