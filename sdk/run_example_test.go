package sdk_test

import (
	"context"
	"log"

	"github.com/openlolo/openlolo/sdk"
)

// A script names its run; the box page's Activity then shows its calls
// together under the title.
func ExampleWithRun() {
	ctx, run := sdk.WithRun(context.Background(), "Nightly Notes smoke test")
	c, err := sdk.Dial(ctx, "openlolo-1a2b.local", nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.LaunchApp(ctx, "Notes", nil); err != nil {
		log.Fatal(err)
	}
	if _, err := c.Control(ctx, "release"); err != nil { // give control back at the end
		log.Fatal(err)
	}
	log.Printf("run %s done", run.ID)
}
