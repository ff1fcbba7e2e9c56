package sdk_test

import (
	"context"
	"fmt"
	"log"

	"github.com/openlolo/openlolo/sdk"
)

// Open every paired box at once: list the phones of all of them as
// box/phone, then call one through its handle, which goes to its box with
// that box's grant and pinned certificate.
func ExampleOpenFleet() {
	lab, desk := startBoxOf("openlolo-lab1", 2), startBoxOf("openlolo-desk", 1)
	defer lab.Close()
	defer desk.Close()
	lab.Pair(lab.Store) // one token store paired with both boxes
	desk.Pair(lab.Store)

	ctx := context.Background()
	fleet, err := sdk.OpenFleet(ctx, &sdk.Options{Store: lab.Store})
	if err != nil {
		log.Fatal(err)
	}
	list, err := fleet.Phones(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range list.Phones {
		fmt.Println(p.ID, p.State)
	}
	phone, err := fleet.Phone(ctx, "openlolo-lab1/sim-2")
	if err != nil {
		log.Fatal(err)
	}
	res, err := phone.CallTool(ctx, "openlolo_screenshot", map[string]any{"max_size": 256})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(phone.ID, res.Status(), len(res.Images), "image")
	// Output:
	// openlolo-desk/phone-1 ready
	// openlolo-lab1/sim-1 ready
	// openlolo-lab1/sim-2 ready
	// openlolo-lab1/sim-2 ok 1 image
}
