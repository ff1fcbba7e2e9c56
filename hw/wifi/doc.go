// Package wifi drives the box's Wi-Fi radio through the well-kept
// daemons that own it: wpa_supplicant for the client side ([Supplicant]:
// scan, join, status, saved networks; [Global] to let go of the interface
// and take it back), hostapd for the setup access point ([Hostapd],
// started with the configuration [APConfig.Config] writes) and busybox
// udhcpd for the setup network's addresses ([DHCPServer]). The daemons
// are spoken to over their control sockets ([Ctrl]); the interface's
// address is set with the ip tool ([Addrs]); the link is checked from the
// kernel's tables ([LinkOf]).
//
// The parsers and configurations are tested on the daemons' text; make
// test-wifi runs the whole package against mac80211_hwsim radios under
// QEMU (Debian's kernel). A Pi's brcmfmac in AP mode is not covered there.
package wifi
