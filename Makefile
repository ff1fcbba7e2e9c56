# openlolo: the box's one Go module. `make run` starts a box on the
# simulated phone; `make test` is what CI runs (.ci/run).

GO       ?= go
export GOTOOLCHAIN ?= local
ifndef VERSION
VERSION  := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
endif
LDVERSION = -X main.version=$(VERSION)
MYPY     ?= /usr/bin/mypy
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# libjpeg-turbo encodes screenshots several times faster than image/jpeg
# (BenchmarkEncode1536JPEG in appliance/picture). It is used when its development files are installed
# (apt-get install libturbojpeg0-dev, and libturbojpeg0-dev:arm64 for the
# Pi); without them the build falls back to image/jpeg.
TURBO_HOST  := $(if $(wildcard /usr/include/turbojpeg.h),turbojpeg)
TURBO_ARM64 := $(if $(wildcard /usr/lib/aarch64-linux-gnu/libturbojpeg.a),turbojpeg)

# Tailscale features the box does not use are built out (ts_omit_* tags;
# the list is made by tailscale.com/cmd/featuretags, see the file). The
# tailnet tests run with the same list minus the three their harness needs.
TS_OMIT      := $(shell grep -v '^\#' cmd/openlolo/tailscale-omit.tags)
TS_OMIT_TEST := $(filter-out ts_omit_ssh ts_omit_clientmetrics ts_omit_syspolicy,$(TS_OMIT))

# The static arm64 binary: cgo for SQLite, linked statically, so the box's
# image needs no shared libraries. SQLite is compiled for size (-Os, 0.26 MB
# less than cgo's default -O2 -g; issue 28): the box's queries are small;
# the SQLite features it does not use are built out (cmd/openlolo/sqlite-size.h,
# read with -include; Go's build cache keys on the flags, not on that file, so
# the flags carry its hash and an edit rebuilds SQLite).
SQLITE_SIZE := $(CURDIR)/cmd/openlolo/sqlite-size.h
SQLITE_HASH := $(shell sha256sum $(SQLITE_SIZE) | cut -c1-12)
ARM64_ENV   = CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc GOOS=linux GOARCH=arm64 \
	CGO_CFLAGS='-Os -include $(SQLITE_SIZE) -DOPENLOLO_SQLITE_SIZE=$(SQLITE_HASH)'
ARM64_TAGS  = netgo osusergo sqlite_omit_load_extension $(TURBO_ARM64) $(TS_OMIT)
ARM64_BIN   = out/openlolo-linux-arm64

.PHONY: all deps build install run test test-go test-scripts test-python bench lint arm64 size arm64-toolchain clean \
	test-kernel test-net test-interop test-clients test-browser image test-image buildroot-image update-bundle test-update test-wifi

all: build

## build: bin/openlolo for this machine (the first build takes about 11 minutes: scripts/build-note.sh says why)
build:
	@GO=$(GO) sh scripts/build-note.sh '$(TURBO_HOST) $(TS_OMIT)'
	$(GO) build -trimpath -tags '$(TURBO_HOST) $(TS_OMIT)' -ldflags '$(LDVERSION)' -o bin/openlolo ./cmd/openlolo

## install: bin/openlolo into $(PREFIX)/bin (default /usr/local/bin), so agents and scripts find openlolo on PATH
# sudo only when that folder (or, missing, its parent) is not writable.
PREFIX ?= /usr/local
install: build
	@dest='$(DESTDIR)$(PREFIX)/bin'; probe=$$dest; [ -d "$$probe" ] || probe=$$(dirname "$$dest"); \
	if [ -w "$$probe" ]; then s=; else s='$(SUDO)'; fi; \
	$$s install -D -m 0755 bin/openlolo "$$dest/openlolo" && echo "installed $$dest/openlolo"

## run: a box on the simulated phone at https://127.0.0.1:8443 (state in .state)
run: build
	bin/openlolo serve --state .state --lan 127.0.0.1:8443 --http 127.0.0.1:8080 --phone sim

## test: every Go test, then the shell tests in scripts/ against the built binaries
test: deps
	$(MAKE) test-go test-scripts test-python

## deps: install the Debian packages the build and the tests need (apt; once)
deps:
	@sh scripts/deps.sh

test-go:
	$(GO) test ./...
ifneq ($(TURBO_HOST),)
	$(GO) test -tags turbojpeg ./appliance/picture/
endif

test-scripts: build arm64
	@set -e; for s in scripts/test-*.sh; do echo "== $$s"; sh "$$s"; done

# The Python SDK's unit and end-to-end tests (standard library only); the
# end-to-end ones start bin/openlolo on the simulated phone.
test-python: build
	OPENLOLO_BIN=bin/openlolo python3 -m unittest discover -s packages/sdk-python/tests -v

## test-interop: the iPhone protocol layers against go-ios v1.3.2 (a test-only module; the product never links go-ios)
# go-ios and go-codesign are not in the checksum database; GOFLAGS=-mod=mod
# lets the module pick up go.sum lines when the main module's dependencies move.
test-interop:
	cd hw/coredevice/interop && GOFLAGS=-mod=mod GONOSUMDB=github.com/danielpaulus/go-ios,github.com/aluedeke/go-codesign \
		$(GO) test -count=1 ./...

## test-browser: the box page in Debian's chromium driven by chromedp, against bin/openlolo serve on the sim (a box of one phone, then one of three, each with its chromium; about 2.5 min)
# Claim, approve a paired script, the owner's pause, Activity, the live view,
# asks, a box of several phones (farm-*.png), and every page at 390 and 1280 px with and without JavaScript (no
# horizontal overflow). Each page's screenshots go to out/browser-shots/
# (<page>-<width>[-nojs].png), a folder CI keeps as the run's artifact.
# chromedp is test-only (integration/browser_*_test.go, build tag browser).
test-browser: build
	$(GO) vet -tags browser ./integration/
	OPENLOLO_BIN=$(CURDIR)/bin/openlolo $(GO) test -tags browser -run TestBrowser -count=1 -v ./integration/

## test-net: the remote entry over an offline tailnet (testcontrol + DERP) and mDNS, in network namespaces
test-net:
	$(GO) test -tags 'tailnet $(TS_OMIT_TEST)' -count=1 -run 'Tailnet|MDNS' ./appliance/entry/ ./cmd/openlolo/

## test-clients: real MCP and OAuth clients (pinned npm packages, Go modules) against bin/openlolo serve on the sim
# npm ci runs only when package-lock.json differs from the one last installed.
# The clients run on Node.js 20 or later (scripts/node20.sh brings it where
# the machine's node is older, as Debian 12's 18 is).
test-clients: build
	@node=$$(sh scripts/node20.sh) && export PATH="$$node:$$PATH" && cd integration/clients && \
		{ cmp -s package-lock.json node_modules/.installed-lock 2>/dev/null || \
		{ npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.installed-lock; }; }
	$(GO) vet -tags clients ./integration/
	node=$$(sh scripts/node20.sh) && PATH="$$node:$$PATH" OPENLOLO_BIN=$(CURDIR)/bin/openlolo \
		$(GO) test -tags clients -run 'TestRealClients|TestFleetTSClient' -count=1 -v ./integration/

## bench: the benchmarks (figures for the closing notes)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## lint: gofmt, go vet, staticcheck, go mod tidy -diff and mypy --strict on the Python SDK must have nothing to say
# staticcheck is pinned by go.mod's tool line (go tool builds it; it is not
# linked into the box); mypy is Debian's /usr/bin/mypy (package mypy, scripts/deps.sh),
# named by its path: the python3 first on PATH may be another one (pyenv) without it.
# The tailnet-tagged test file is left out: its tag set makes staticcheck
# analyse tailscale.com again (8 minutes).
lint: deps
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt -l lists files to format:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
ifneq ($(TURBO_HOST),)
	$(GO) vet -tags turbojpeg ./appliance/picture/
	$(GO) tool staticcheck -tags turbojpeg ./appliance/picture/
endif
	$(GO) tool staticcheck -tags clients ./integration/
	$(GO) tool staticcheck -tags browser ./integration/
	$(GO) mod tidy -diff
	$(MYPY) --strict packages/sdk-python/openlolo

## arm64: the static arm64 binary for the box
arm64: arm64-toolchain
	@mkdir -p out
	@$(ARM64_ENV) GO=$(GO) sh scripts/build-note.sh '$(ARM64_TAGS)'
	$(ARM64_ENV) $(GO) build -trimpath -tags '$(ARM64_TAGS)' \
		-ldflags '-s -w -extldflags -static $(LDVERSION)' -o $(ARM64_BIN) ./cmd/openlolo

## size: docs/size.md, what each package and module adds to the arm64 binary (from an unstripped build with make arm64's tags)
size: arm64
	$(ARM64_ENV) $(GO) build -trimpath -tags '$(ARM64_TAGS)' \
		-ldflags '-extldflags -static $(LDVERSION)' -o $(ARM64_BIN).unstripped ./cmd/openlolo
	$(GO) run ./cmd/sizereport -stripped $(ARM64_BIN) -notes docs/size-cuts.md $(ARM64_BIN).unstripped > docs/size.md

arm64-toolchain:
	@command -v aarch64-linux-gnu-gcc >/dev/null || { \
		echo "installing the arm64 cross compiler (apt)"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y gcc-aarch64-linux-gnu libc6-dev-arm64-cross; }

# ---------------------------------------------------------------------------
# The real kernel and the SD image, under QEMU (Debian packages only; see
# .ci/run for the apt lines). Downloads are cached in .cache/.

## test-kernel: gadget, HID, capture and USB host drivers against Debian's arm64 kernel under QEMU, with the box's arm64 binary on fake phones
test-kernel: arm64
	$(GO) run ./image/kerneltest -cache .cache/vm -openlolo $(ARM64_BIN)

## image: out/openlolo-$(VERSION)-rpi.img (+ .sha256), offline, from pinned Debian arm64 packages
image: arm64
	VERSION=$(VERSION) sh image/mkimage.sh

# The update bundle is signed with keys/update.key, made on first use and
# kept out of git (a release build points UPDATE_KEYS at the release key's
# folder; README "Updates"). make image puts keys/update.pub on the root.
UPDATE_KEYS ?= keys
export UPDATE_KEYS

## update-bundle: out/openlolo-$(VERSION)-rpi.update: the image's root and boot files, signed (ed25519)
update-bundle: image
	VERSION=$(VERSION) sh image/mkbundle.sh

## test-update: A/B updates under QEMU: v1 → v2, a v3 that fails its self-check rolls back, refusals, a power cut
test-update: build
	@[ -f out/openlolo-$(VERSION)-rpi.img.buildinfo ] || $(MAKE) image VERSION=$(VERSION)
	VERSION=$(VERSION) sh image/test-update.sh

## test-image: build the image twice (byte-identical), boot it under QEMU and drive it as an owner and a client
test-image: image
	VERSION=$(VERSION) sh image/test-image.sh

## test-wifi: the setup Wi-Fi network under QEMU: the card with three mac80211_hwsim radios (box, home AP, phone)
test-wifi:
	@[ -f out/openlolo-$(VERSION)-rpi.img.buildinfo ] || $(MAKE) image VERSION=$(VERSION)
	$(GO) run ./image/boottest -wifi -timeout 20m -image out/openlolo-$(VERSION)-rpi.img

## buildroot-image: the production image with Buildroot (needs internet; not run by CI)
buildroot-image:
	sh buildroot/build.sh $(or $(BOARD),rpi4)

.PHONY: check-buildroot
## check-buildroot: the Buildroot tree without Buildroot (shellcheck, defconfig options, Go hashes, EDID; seconds)
check-buildroot:
	sh buildroot/check-tree.sh

clean:
	rm -rf bin out
