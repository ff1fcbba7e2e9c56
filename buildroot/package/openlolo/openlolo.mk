################################################################################
#
# openlolo
#
################################################################################

# The source is this repository. Buildroot does not vendor a local package,
# so buildroot/build.sh makes a snapshot with vendor/ and passes it as
# OPENLOLO_OVERRIDE_SRCDIR; without it the repository itself is used and
# must hold vendor/ (go mod vendor).
OPENLOLO_VERSION = $(or $(OPENLOLO_IMAGE_VERSION),dev)
OPENLOLO_SITE = $(BR2_EXTERNAL_OPENLOLO_PATH)/..
OPENLOLO_SITE_METHOD = local
# Apache-2.0 (LICENSE at the repository's root; NOTICE lists the
# third-party test material). The vendored modules keep their own
# licences in vendor/.
OPENLOLO_LICENSE = Apache-2.0
OPENLOLO_LICENSE_FILES = LICENSE NOTICE
OPENLOLO_GOMOD = github.com/openlolo/openlolo
OPENLOLO_BUILD_TARGETS = cmd/openlolo
OPENLOLO_TAGS = osusergo netgo sqlite_omit_load_extension \
	$(shell grep -v '^\#' $(BR2_EXTERNAL_OPENLOLO_PATH)/../cmd/openlolo/tailscale-omit.tags)
# -static goes in EXTLDFLAGS: Go keeps only the last -extldflags, and the
# infrastructure adds its own after LDFLAGS (a binary that silently comes
# out dynamic otherwise).
OPENLOLO_EXTLDFLAGS = -static
OPENLOLO_LDFLAGS = -X main.version=$(OPENLOLO_VERSION)
# The SQLite features the box does not use are built out, as make arm64
# does (cmd/openlolo/sqlite-size.h: -include is read after go-sqlite3's
# own -D flags, which CGO_CFLAGS alone cannot undo).
OPENLOLO_GO_ENV = CGO_CFLAGS="$(TARGET_CFLAGS) -include $(@D)/cmd/openlolo/sqlite-size.h"
OPENLOLO_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS = \
	--exclude out --exclude bin --exclude .cache --exclude .state --exclude buildroot/output

$(eval $(golang-package))
