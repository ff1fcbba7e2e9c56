// Package ddi speaks to an iPhone's mobile_image_mounter, the service that
// mounts the personalized developer disk image (DDI) iOS 17 and later need
// before the CoreDevice developer services (screenshots, apps, the
// pasteboard, HID) appear in the phone's service list.
//
// # Why the internet is needed
//
// The disk image itself is the same for every phone (Xcode ships it as
// Restore/BuildManifest.plist, Image.dmg and Image.dmg.trustcache). What
// differs is its personalization: before mounting, the phone wants an
// ApImg4Ticket that Apple's signing server (TSS, https://gs.apple.com) made
// for this phone's chip (ECID, board and chip ids) and for a nonce the
// phone chose at boot. The nonce changes with every restart, and a mounted
// image does not survive one, so after each restart of the phone the box
// asks TSS again. Without the internet the image stays unmounted.
//
// # The protocol
//
// Over the CoreDevice tunnel the service is the lockdown "shim"
// com.apple.mobile.mobile_image_mounter.shim.remote: plain TCP, RSDCheckin,
// then property lists with a 4-byte big-endian length, each a {Command: …}
// request answered by one reply (an Error key is a refusal). Commands:
// LookupImage, QueryDeveloperModeStatus, QueryPersonalizationIdentifiers,
// QueryNonce, QueryPersonalizationManifest, ReceiveBytes (then the raw
// image), MountImage, Hangup. The facts come from go-ios (MIT,
// ios/imagemounter); no code was copied.
package ddi
