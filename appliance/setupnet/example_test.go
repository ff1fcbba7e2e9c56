package setupnet_test

import (
	"errors"
	"fmt"

	"github.com/openlolo/openlolo/appliance/setupnet"
)

func ExampleCard() {
	c := setupnet.Card{SSID: setupnet.SSID("10000000c3f23f2a"), Password: "k7dm-2xqa-9fhe-wp3t", PageURL: "http://192.168.4.1/"}
	fmt.Println(c.SSID)
	fmt.Println(c.WiFiQR())
	// Output:
	// openlolo-setup-3f2a
	// WIFI:T:WPA;S:openlolo-setup-3f2a;P:k7dm-2xqa-9fhe-wp3t;;
}

func ExampleCheckPassphrase() {
	var e *setupnet.Error
	if err := setupnet.CheckPassphrase("hunter2"); errors.As(err, &e) {
		fmt.Println(e.Code)
		fmt.Println(e.Message)
	}
	// Output:
	// WIFI_PASSPHRASE_TOO_SHORT
	// A Wi-Fi password has at least 8 characters; this one has 7.
}
