################################################################################
#
# openlolo package overrides (BR2_PACKAGE_OVERRIDE_FILE)
#
################################################################################

# The one place the image's Go version is stated. go.mod needs Go 1.26.6 or
# later (tailscale.com); Buildroot 2026.05.1 ships 1.26.3. Only a patch
# release of the same minor may be set here, with the prebuilt host Go
# (BR2_PACKAGE_HOST_GO_BIN). The tarballs' sha256 are committed in
# patches/go-bin/go-bin.hash: change both together (buildroot/check-tree.sh
# checks they agree). build.sh vendors the modules with this Go too.
override GO_VERSION = 1.26.8

# A developer's own overrides (e.g. OPENLOLO_OVERRIDE_SRCDIR), not in git
-include $(BR2_EXTERNAL_OPENLOLO_PATH)/board/openlolo/local.mk
