// Command boottest is the QEMU boot test of the openlolo SD-card image
// (make test-image). It boots the image's own kernel, initramfs and command
// line under qemu-system-aarch64 -M virt with the whole card as the disk,
// forwards the box's HTTPS port to the host and then, from the host, as an
// owner and a script would:
//
//   - connects with the certificate pinned to the fingerprint the box
//     printed on its console, and reads /healthz;
//   - takes the setup code off the card's boot partition and claims the box;
//   - asks for a device authorization, approves it as the owner, gets
//     tokens, and calls openlolo_status and openlolo_screenshot over MCP;
//   - checks that the root is read-only and the data partition grew;
//   - reboots and checks that the claim, the certificate and the grant
//     survived; pulls the virtual power during token refreshes, boots again
//     and runs PRAGMA integrity_check on the database taken off the card;
//   - boots the same card on -M raspi3b with the Pi 3 device tree.
//
// The box runs with openlolo.phone=sim (the simulated phone) and
// openlolo.debug=1 (a root shell on TCP 23, forwarded too) on the kernel
// command line. It prints one line per check and "N passed, N failed" last;
// the exit status is 1 when a check failed.
//
//	go run ./image/boottest -image out/openlolo-<version>-rpi.img
package main
