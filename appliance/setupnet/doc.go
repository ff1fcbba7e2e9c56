// Package setupnet is the policy of the box's setup Wi-Fi network: when it
// opens and closes ([Machine]), what the person may type ([CheckSSID],
// [CheckPassphrase]), its name and password ([SSID], [LoadPassword]), the
// setup card ([Card], its text and QR codes), and what a phone on it meets: every DNS name
// answers with the box ([DNS]) and every foreign web request, the phones'
// captive-portal probes among them, is sent to the box page ([Captive]).
//
// The radio is the caller's, behind [Radio] (cmd/openlolo adapts hw/wifi,
// which speaks to wpa_supplicant and hostapd), so this package builds and
// is tested without one.
package setupnet
