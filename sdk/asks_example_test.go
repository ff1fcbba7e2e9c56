package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/url"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
	"github.com/openlolo/openlolo/sdk"
)

// A call the owner marked (a new box asks before launching Settings,
// Wallet, Phone, Messages, Mail and App Store) answers with an
// *sdk.AskPendingError: nothing ran yet. Once the owner decided on the
// box page, the same call with the same operation_id runs, once.
func ExampleAskPendingError() {
	box := startPairedBox()
	defer box.Close()
	ctx := context.Background()
	c, err := sdk.Dial(ctx, box.URL, &sdk.Options{Store: box.Store})
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.LaunchApp(ctx, "com.apple.Preferences", nil)
	var ask *sdk.AskPendingError
	if !errors.As(err, &ask) {
		log.Fatalf("want an ask, got %v", err)
	}
	fmt.Println("the owner is asked to", ask.Ask.What)
	box.Allow(ask.Ask.ID) // here the owner allows at once, on the page at ask.Ask.URL

	// The retry: same arguments, same operation_id.
	res, err := c.LaunchApp(ctx, "com.apple.Preferences", &sdk.InputOptions{OperationID: ask.OperationID})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.Control(ctx, "release"); err != nil { // done: give control back
		log.Fatal(err)
	}
	fmt.Println(res.Status(), box.Phone.Screen())
	// Output:
	// the owner is asked to launch Settings (com.apple.Preferences)
	// ok settings
}

// Allow allows the pending ask id as the owner on its box page.
func (b *exampleBox) Allow(id string) {
	tok := ownertest.CSRF(panicTB{}, b.owner, b.URL)
	res, body := ownertest.PostForm(panicTB{}, b.owner, b.URL, "/asks/"+id, url.Values{"csrf": {tok}, "decision": {"allow"}})
	if res.StatusCode != 200 {
		panic(fmt.Sprintf("allow %s: %d %s", id, res.StatusCode, ownertest.Text(body)))
	}
}
