// Package wifi drives the box's Wi-Fi radio through the two well-kept
// daemons that own it: wpa_supplicant for the client side ([Supplicant]:
// scan, join, status, saved networks) and hostapd for the setup access
// point ([Hostapd], started with the configuration [APConfig.Config]
// writes). Both are spoken to over their control sockets ([Ctrl]); the
// link is checked from the kernel's tables ([Link]).
//
// The parsers are tested on control-socket text in the daemons' formats;
// the package has not yet run against a real radio (that is the QEMU
// mac80211_hwsim test's job).
package wifi
