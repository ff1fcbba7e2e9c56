package sdk_test

import (
	"context"
	"fmt"
	"log"

	"github.com/openlolo/openlolo/sdk"
)

// Elements name what is on the screen: find one by query, tap it by its
// id, and type into a text field by its id.
func ExampleClient_Elements() {
	box := startPairedBox()
	defer box.Close()

	ctx := context.Background()
	c, err := sdk.Dial(ctx, box.URL, &sdk.Options{Store: box.Store})
	if err != nil {
		log.Fatal(err)
	}
	found, err := c.Elements(ctx, sdk.ElementsOptions{Query: "Notes"})
	if err != nil {
		log.Fatal(err)
	}
	notes := found.Elements[0]
	fmt.Println(found.Source, notes.ID, notes.Role, notes.Text)
	if _, err := c.TapElement(ctx, found.Frame, notes.ID, nil); err != nil {
		log.Fatal(err)
	}
	fields, err := c.Elements(ctx, sdk.ElementsOptions{Query: "note", ClickableOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	field := fields.Elements[0]
	if _, err := c.TypeTextInto(ctx, fields.Frame, field.ID, "Buy milk", &sdk.InputOptions{Observe: new(bool)}); err != nil {
		log.Fatal(err)
	}
	typed, err := c.Elements(ctx, sdk.ElementsOptions{Query: "milk"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(typed.Elements[0].Role, typed.Elements[0].Text)
	// Output:
	// sim e9 button Notes
	// text_field Buy milk
}
