// Package update installs signed A/B updates on the box.
//
// # Bundles
//
// A bundle (openlolo-<version>-<board>.update, made by make update-bundle)
// is an uncompressed tar file whose first member is manifest.json (the
// version, the board, the build time and the name, size and SHA-256 of
// every other member), whose second is manifest.sig (the ed25519
// signature of the manifest's bytes, see [Sign]), and whose other members
// are exactly the manifest's files in its order: root.squashfs (the root
// image) first, then the boot files that go with it under boot/ (kernel,
// initramfs, device trees, overlays, cmdline.txt). [Open] reads and checks
// the manifest against the box's public key before any other byte is
// used; [Reader.Next] hands out each file through a reader that fails
// unless the file has its signed size and hash.
//
// # Slots
//
// The card has two root partitions. [Updater.Install] writes the slot the
// box is not running ([Slots] is the card; the tests' fake and the card
// implementation on the image both implement it), reads it back against
// the manifest, backs the database up, and asks the slots to boot the new
// one once. On that boot, [Updater.Confirm] runs the box's self-check and
// commits the slot; when the check fails, or the box never gets there
// (the boot scripts reboot a trial that was not committed in time), the
// next boot is the old slot and [Recover] puts the database back as it
// was before the update.
//
// # Errors
//
// Every refusal is an [*Error] with a stable [Code] and a sentence a
// person can act on; none of them changes the running slot or the data.
package update
