// Package tailnettest runs an offline tailnet for tests: an in-process
// coordination server with DERP and STUN on loopback (tailscale.com's
// testcontrol) and tsnet nodes that join it. Its code builds only with
// the tailnet tag, as do the tests that use it (make test-net): it pulls
// in tailscale.com's test servers, which the other tests need not build.
package tailnettest
