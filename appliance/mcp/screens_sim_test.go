package mcp_test

import (
	"bytes"
	"errors"
	"image"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/mcp"
	"github.com/openlolo/openlolo/appliance/store"
)

// refusedCode is the box's code of a refused resources or prompts
// request, and its next steps.
func refusedCode(t *testing.T, err error) (api.Code, string) {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("%v is not a JSON-RPC error", err)
	}
	code, _, _ := strings.Cut(je.Message, ":")
	return api.Code(code), string(je.Data)
}

// On a box of three phones, over the real endpoint: each phone's screen
// is a resource (listed with the name the owner gave it) whose frame a
// tap on that phone takes; openlolo://screen names no phone and answers
// PHONE_REQUIRED naming the screens; operate_phone names the phones, or
// the one asked for; openlolo_phones gives the owner's name.
func TestScreensAndPromptPerPhone(t *testing.T) {
	b := newSimsBox(t, 3)
	ctx := t.Context()
	if err := b.store.Update(ctx, func(tx *store.Tx) error { return tx.SetPhoneName("sim-2", "Kitchen iPhone", time.Now()) }); err != nil {
		t.Fatal(err)
	}
	cs := b.session(t, b.token(t, "farm agent", "phone:read phone:control"))

	_, phones := call(t, cs, "openlolo_phones", nil)
	if list, _ := phones["phones"].([]any); len(list) != 3 || list[1].(map[string]any)["name"] != "Kitchen iPhone" || list[0].(map[string]any)["name"] != "Simulated iPhone" {
		t.Errorf("openlolo_phones: %v, want sim-2 named Kitchen iPhone and the others by their model", phones)
	}
	tpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || !slices.ContainsFunc(tpl.ResourceTemplates, func(r *sdk.ResourceTemplate) bool { return r.URITemplate == mcp.ScreenTemplate }) {
		t.Fatalf("resources/templates/list lacks %s: %+v, %v", mcp.ScreenTemplate, tpl, err)
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, r := range list.Resources {
		titles[r.URI] = r.Title
	}
	if titles["openlolo://screen/sim-1"] == "" || titles["openlolo://screen/sim-3"] == "" || !strings.Contains(titles["openlolo://screen/sim-2"], "Kitchen iPhone") {
		t.Errorf("resources/list does not list each phone's screen by its name: %v", titles)
	}

	_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: mcp.ScreenURI})
	if code, data := refusedCode(t, err); code != api.CodePhoneRequired || !strings.Contains(data, "openlolo://screen/sim-1, openlolo://screen/sim-2, openlolo://screen/sim-3") {
		t.Errorf("read %s on a box of three: %s %s, want PHONE_REQUIRED naming the screens", mcp.ScreenURI, code, data)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "openlolo://screen/sim-9"}); err == nil {
		t.Error("read the screen of a phone the box lacks: no error")
	} else if code, _ := refusedCode(t, err); code != api.CodePhoneRequired {
		t.Errorf("read the screen of a phone the box lacks: %s, want PHONE_REQUIRED", code)
	}
	scr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "openlolo://screen/sim-2"})
	if err != nil || len(scr.Contents) != 1 || scr.Contents[0].URI != "openlolo://screen/sim-2" {
		t.Fatalf("read sim-2's screen: %+v, %v", scr, err)
	}
	if _, format, err := image.Decode(bytes.NewReader(scr.Contents[0].Blob)); err != nil || format != "jpeg" {
		t.Fatalf("sim-2's screen: %s, %v", format, err)
	}
	frame, _ := scr.Contents[0].Meta["openlolo.mcp"].(map[string]any)["frame"].(map[string]any)
	notes, _ := b.sims[1].IconCenter("Notes")
	args := frameArgs(frame, notes.X, notes.Y)
	args["phone"] = "sim-2"
	_, tap := call(t, cs, "openlolo_tap", args)
	mustOK(t, "tap sim-2 with its screen resource's frame", tap)
	if got := []string{b.sims[0].Screen(), b.sims[1].Screen(), b.sims[2].Screen()}; !slices.Equal(got, []string{"home", "notes", "home"}) {
		t.Errorf("screens after the tap on sim-2: %v", got)
	}

	for _, tc := range []struct {
		phone string
		want  []string
	}{
		{"", []string{"sim-1 (Simulated iPhone), sim-2 (Kitchen iPhone), sim-3 (Simulated iPhone)", mcp.ScreenTemplate}},
		{"sim-2", []string{`Your phone: Kitchen iPhone (id sim-2). Pass phone="sim-2"`, "openlolo://screen/sim-2"}},
	} {
		got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: mcp.PromptOperatePhone, Arguments: map[string]string{"phone": tc.phone}})
		if err != nil {
			t.Fatalf("operate_phone for %q: %v", tc.phone, err)
		}
		text := got.Messages[0].Content.(*sdk.TextContent).Text
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("operate_phone for %q does not say %q: %.300s", tc.phone, w, text)
			}
		}
	}
	_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: mcp.PromptOperatePhone, Arguments: map[string]string{"phone": "sim-9"}})
	if code, data := refusedCode(t, err); code != api.CodePhoneRequired || !strings.Contains(data, "sim-1 (Simulated iPhone)") {
		t.Errorf("operate_phone for a phone the box lacks: %s %s, want PHONE_REQUIRED naming the phones", code, data)
	}

	// A grant of one phone lists that phone's screen alone and reads it
	// as openlolo://screen.
	one := b.session(t, b.tokenOn(t, "one phone", "phone:read", []string{"sim-3"}))
	list, err = one.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var screens []string
	for _, r := range list.Resources {
		if strings.HasPrefix(r.URI, mcp.ScreenURI) {
			screens = append(screens, r.URI)
		}
	}
	if !slices.Equal(screens, []string{mcp.ScreenURI, "openlolo://screen/sim-3"}) {
		t.Errorf("a grant of sim-3 lists screens %v", screens)
	}
	if scr, err := one.ReadResource(ctx, &sdk.ReadResourceParams{URI: mcp.ScreenURI}); err != nil || len(scr.Contents) != 1 {
		t.Errorf("a grant of sim-3 reads %s: %v", mcp.ScreenURI, err)
	}
	// Reads go through control's rules: before, a read of the screen
	// took the first phone's picture whatever the grant reached.
	_, err = one.ReadResource(ctx, &sdk.ReadResourceParams{URI: "openlolo://screen/sim-1"})
	if code, _ := refusedCode(t, err); code != api.CodePhoneNotGranted {
		t.Errorf("a grant of sim-3 reads sim-1's screen: %s, want PHONE_NOT_GRANTED", code)
	}
}

// A box of one phone lists no per-phone screens and its prompt names no
// phone, as before; naming a phone it lacks is refused.
func TestPromptOnePhone(t *testing.T) {
	b := newSimBox(t)
	ctx := t.Context()
	cs := b.session(t, b.token(t, "agent", "phone:read"))
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Resources {
		if strings.HasPrefix(r.URI, "openlolo://screen/") {
			t.Errorf("a box of one phone lists %s", r.URI)
		}
	}
	got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: mcp.PromptOperatePhone})
	if text := got.Messages[0].Content.(*sdk.TextContent).Text; err != nil || !strings.HasPrefix(text, "You operate one phone") {
		t.Errorf("operate_phone on a box of one: %v %.100s", err, text)
	}
	_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: mcp.PromptOperatePhone, Arguments: map[string]string{"phone": "sim-9"}})
	if code, _ := refusedCode(t, err); code != api.CodePhoneRequired {
		t.Errorf("operate_phone for a phone a box of one lacks: %s", code)
	}
}
