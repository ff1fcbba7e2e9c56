package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/mcp"
)

// TestResourcesAndPromptsOnSim: through the real endpoint on the simulated
// iPhone, the go-sdk client sees the resources and prompts capabilities,
// lists the screen and the app profiles, reads the screen as an image
// whose frame a tap then uses, reads a profile as JSON, and gets the
// operate_phone prompt with its goal.
func TestResourcesAndPromptsOnSim(t *testing.T) {
	b := newSimBox(t)
	ctx := context.Background()
	cs := b.session(t, b.token(t, "resource agent", "phone:read phone:control"))

	caps := cs.InitializeResult().Capabilities
	if caps.Resources == nil || caps.Prompts == nil || caps.Tools == nil {
		t.Fatalf("initialize capabilities %+v", caps)
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]*sdk.Resource{}
	for _, r := range list.Resources {
		uris[r.URI] = r
	}
	if uris[mcp.ScreenURI] == nil || uris["openlolo://apps/com.apple.Maps"] == nil || uris["openlolo://apps/com.whatsapp"] != nil {
		t.Fatalf("resources/list: %d resources, screen %v, Maps %v, an Android one %v", len(list.Resources),
			uris[mcp.ScreenURI] != nil, uris["openlolo://apps/com.apple.Maps"] != nil, uris["openlolo://apps/com.whatsapp"] != nil)
	}
	tpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != mcp.AppsTemplate {
		t.Fatalf("resources/templates/list: %+v, %v", tpl, err)
	}

	// The screen: a JPEG whose frame is the caller's latest.
	scr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: mcp.ScreenURI})
	if err != nil || len(scr.Contents) != 1 {
		t.Fatalf("read screen: %+v, %v", scr, err)
	}
	c := scr.Contents[0]
	pic, format, err := image.Decode(bytes.NewReader(c.Blob))
	if err != nil || format != "jpeg" || c.MIMEType != "image/jpeg" || pic.Bounds().Dy() != api.DefaultMaxSize {
		t.Fatalf("screen blob: %s %s %v, %v", c.MIMEType, format, pic, err)
	}
	meta, _ := c.Meta["openlolo.mcp"].(map[string]any)
	frame, _ := meta["frame"].(map[string]any)
	if frame["frame_id"] == nil || frame["width"] != float64(pic.Bounds().Dx()) {
		t.Fatalf("screen _meta: %v", c.Meta)
	}
	notes, _ := b.sim.IconCenter("Notes")
	_, tap := call(t, cs, "openlolo_tap", frameArgs(frame, notes.X, notes.Y))
	if mustOK(t, "tap with the screen resource's frame", tap); b.sim.Screen() != "notes" {
		t.Fatalf("the tap on Notes shows %s", b.sim.Screen())
	}

	// A profile, as openlolo_app_profile gives it.
	app, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "openlolo://apps/com.apple.Maps"})
	if err != nil || len(app.Contents) != 1 || app.Contents[0].MIMEType != "application/json" {
		t.Fatalf("read Maps: %+v, %v", app, err)
	}
	var p api.AppProfile
	if err := json.Unmarshal([]byte(app.Contents[0].Text), &p); err != nil || p.BundleID != "com.apple.Maps" || len(p.Links) == 0 {
		t.Fatalf("Maps profile %+v, %v", p, err)
	}
	// Through the template, too: a profile of the other platform.
	if wa, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "openlolo://apps/com.whatsapp"}); err != nil || !strings.Contains(wa.Contents[0].Text, `"platform": "android"`) {
		t.Fatalf("read com.whatsapp: %+v, %v", wa, err)
	}
	for _, uri := range []string{"openlolo://apps/com.example.none", "openlolo://apps/", "openlolo://nothing"} {
		_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("read %s: %v, want resource not found", uri, err)
		}
	}

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != mcp.PromptOperatePhone {
		t.Fatalf("prompts/list: %+v, %v", prompts, err)
	}
	got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: mcp.PromptOperatePhone, Arguments: map[string]string{"goal": "write a note"}})
	if err != nil || len(got.Messages) != 1 {
		t.Fatalf("prompts/get: %+v, %v", got, err)
	}
	text := got.Messages[0].Content.(*sdk.TextContent).Text
	for _, want := range []string{"write a note", "openlolo_screenshot", "openlolo_find_text", "frame_id", "observe", "command=release"} {
		if !strings.Contains(text, want) {
			t.Errorf("the prompt does not say %q", want)
		}
	}
}

// TestResourcesNeedRead: a grant without phone:read lists no resources,
// templates or prompts, and a read or get is refused with SCOPE_REQUIRED.
func TestResourcesNeedRead(t *testing.T) {
	b := newSimBox(t)
	ctx := context.Background()
	cs := b.session(t, b.token(t, "control only", "phone:control"))
	if l, err := cs.ListResources(ctx, nil); err != nil || len(l.Resources) != 0 {
		t.Errorf("resources/list without read: %+v, %v", l, err)
	}
	if l, err := cs.ListResourceTemplates(ctx, nil); err != nil || len(l.ResourceTemplates) != 0 {
		t.Errorf("resources/templates/list without read: %+v, %v", l, err)
	}
	if l, err := cs.ListPrompts(ctx, nil); err != nil || len(l.Prompts) != 0 {
		t.Errorf("prompts/list without read: %+v, %v", l, err)
	}
	for _, uri := range []string{mcp.ScreenURI, "openlolo://apps/com.apple.Maps"} {
		_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || !strings.HasPrefix(je.Message, "SCOPE_REQUIRED") || !bytes.Contains(je.Data, []byte(`"next_steps"`)) {
			t.Errorf("read %s without read: %v", uri, err)
		}
	}
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: mcp.PromptOperatePhone}); err == nil || !strings.Contains(err.Error(), "SCOPE_REQUIRED") {
		t.Errorf("prompts/get without read: %v", err)
	}
	// The refused screen read gave this client no frame.
	_, tap := call(t, cs, "openlolo_tap", map[string]any{"frame_id": "x-1", "geometry_epoch": "1", "x": 0.5, "y": 0.5})
	if e, _ := tap["error"].(map[string]any); code(tap) != api.CodeFrameExpired || !strings.Contains(e["message"].(string), "take a screenshot first") {
		t.Errorf("after a refused screen read a tap answered %v", tap)
	}
}
