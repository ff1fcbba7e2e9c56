package sdk_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/sdk"
)

// Pair once per machine: the owner approves the request on the box page,
// and the grant goes into the token store that Dial (and the Python SDK)
// read.
func ExamplePair() {
	box := startExampleBox() // a box on the simulated phone, claimed by its owner
	defer box.Close()

	b, err := sdk.Pair(context.Background(), box.URL, sdk.PairOptions{
		ClientName: "nightly.go",
		// The box's fingerprint as its console and box page (Connect)
		// show it; without a pin, Confirm decides (trust on first use).
		Pin:   box.Fingerprint,
		Store: box.Store, // nil: the per-user store
		Prompt: func(msg, code, link string) {
			fmt.Println(strings.Replace(msg, code, "XXXX-XXXX", 1))
			box.Approve(code) // here the owner approves at once
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("paired as", b.ClientName, "with", b.Scope)
	// Output:
	// Approve 'nightly.go' on the box page (Access). Code XXXX-XXXX.
	// paired as nightly.go with phone:read phone:control
}

// Dial a box paired earlier: the client pins its certificate and refreshes
// the access token from the store as needed.
func ExampleDial() {
	box := startPairedBox()
	defer box.Close()

	ctx := context.Background()
	c, err := sdk.Dial(ctx, box.URL, &sdk.Options{Store: box.Store})
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.Status(ctx)
	if err != nil {
		log.Fatal(err)
	}
	st, err := sdk.Decode[api.StatusResult](res) // the contract's typed result
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status(), st.You.ClientName, st.You.Scopes, st.Phone.Ready)
	// Output: ok example.go [phone:read phone:control] true
}

// A screenshot is the picture and the frame that touch coordinates refer
// to.
func ExampleClient_Screenshot() {
	box := startPairedBox()
	defer box.Close()

	ctx := context.Background()
	c, err := sdk.Dial(ctx, box.URL, &sdk.Options{Store: box.Store})
	if err != nil {
		log.Fatal(err)
	}
	shot, err := c.Screenshot(ctx, sdk.ScreenshotOptions{Format: "png", MaxSize: 852})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %dx%d of a %dx%d screen\n", shot.MIMEType, shot.Width, shot.Height, shot.NativeWidth, shot.NativeHeight)
	// Output: image/png 393x852 of a 1179x2556 screen
}

// Tap takes coordinates as fractions of the caller's latest screenshot,
// named by its frame.
func ExampleClient_Tap() {
	box := startPairedBox()
	defer box.Close()

	ctx := context.Background()
	c, err := sdk.Dial(ctx, box.URL, &sdk.Options{Store: box.Store})
	if err != nil {
		log.Fatal(err)
	}
	shot, err := c.Screenshot(ctx, sdk.ScreenshotOptions{})
	if err != nil {
		log.Fatal(err)
	}
	notes, _ := box.Phone.IconCenter("Notes") // where the home screen shows Notes
	res, err := c.Tap(ctx, shot.Frame, notes.X, notes.Y, nil)
	if err != nil {
		log.Fatal(err)
	}
	tap, err := sdk.Decode[api.TapResult](res)
	if err != nil {
		log.Fatal(err)
	}
	// The answer's observation is the screenshot taken after the tap: the
	// frame to touch next.
	// Give control back: the next client need not wait out the 90 s lease.
	if _, err := c.Control(ctx, "release"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status(), box.Phone.Screen(), tap.Observation.Width, tap.Observation.Height)
	// Output: ok notes 708 1536
}

// TypeText types into whatever has the focus; a refused call is a
// *sdk.Refused that errors.Is matches against the codes.
func ExampleClient_TypeText() {
	box := startPairedBox()
	defer box.Close()

	ctx := context.Background()
	c, err := sdk.Dial(ctx, box.URL, &sdk.Options{Store: box.Store})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.LaunchApp(ctx, "Notes", nil); err != nil {
		log.Fatal(err)
	}
	res, err := c.TypeText(ctx, "Hello from Go", nil)
	if err != nil {
		log.Fatal(err)
	}
	// Give control back: the next client need not wait out the 90 s lease.
	if _, err := c.Control(ctx, "release"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status(), box.Phone.NoteText())
	// Output: ok Hello from Go
}

// OpenLink opens a deep link of an app's profile: the box checks the
// parameters by their types and percent-encodes them.
func ExampleClient_OpenLink() {
	box := startPairedBox()
	defer box.Close()

	ctx := context.Background()
	c, err := sdk.Dial(ctx, box.URL, &sdk.Options{Store: box.Store})
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.OpenLink(ctx, "com.apple.Maps", "search", map[string]any{"query": "coffee & cake", "zoom": 15}, nil)
	if err != nil {
		log.Fatal(err)
	}
	link, err := sdk.Decode[api.OpenLinkResult](res)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status(), link.URL)
	// Give control back: the next client need not wait out the 90 s lease.
	if _, err := c.Control(ctx, "release"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(box.Phone.Screen(), box.Phone.URL()) // the simulated phone's Safari opened it
	// Output:
	// ok https://maps.apple.com/?q=coffee%20%26%20cake&z=15
	// safari https://maps.apple.com/?q=coffee%20%26%20cake&z=15
}
