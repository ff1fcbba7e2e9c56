# openlolo: Buildroot package override file (BR2_PACKAGE_OVERRIDE_FILE).
# go.mod needs Go 1.26.6 or later (tailscale.com v1.102.x); Buildroot
# 2026.05.1 ships 1.26.3. Only a patch release of the same minor may be set
# here, with the prebuilt host Go (BR2_PACKAGE_HOST_GO_BIN). buildroot/build.sh
# writes the tarballs' sha256 from go.dev into $(BASE_DIR)/openlolo-patches.
override GO_VERSION = 1.26.8
-include $(BR2_EXTERNAL_OPENLOLO_PATH)/board/openlolo/local.mk
