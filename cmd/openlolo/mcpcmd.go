package main

import (
	"context"

	"github.com/openlolo/openlolo/sdk"
)

// mcpCmd serves MCP on stdin/stdout for a local agent and forwards every
// request to the box: claude mcp add openlolo -- openlolo mcp openlolo-1a2b.local.
// With --fleet it serves every paired box at once (sdk.FleetBridge).
func mcpCmd(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "mcp", "BOX | --fleet")
	fleet := fs.Bool("fleet", false, "serve the phones of every paired box at once, with ids box/phone (openlolo_phones lists them)")
	pos, err := interleave(fs, args)
	if err != nil {
		return parseErr(err)
	}
	switch {
	case *fleet && len(pos) > 0:
		return usagef("--fleet serves every paired box; give no box with it")
	case *fleet:
		return mcpFleet(ctx, c)
	case len(pos) != 1:
		return usagef("give one paired box: openlolo mcp openlolo-1a2b.local (or --fleet for all of them)")
	}
	cl, err := dialBox(ctx, c, pos[0])
	if err != nil {
		return err
	}
	c.logger().Info("openlolo mcp: forwarding stdio MCP to the box", "box", cl.URL())
	return clientExit(sdk.Bridge(ctx, cl, c.Stdin, c.Stdout))
}

// mcpFleet serves the fleet of every box in the user's token store.
func mcpFleet(ctx context.Context, c *Context) error {
	f, ids, err := openFleet(ctx, c)
	if err != nil {
		return err
	}
	c.logger().Info("openlolo mcp --fleet: serving the phones of every paired box on stdio", "boxes", ids)
	return clientExit(sdk.FleetBridge(ctx, f, c.Stdin, c.Stdout))
}

// openFleet opens every box in the user's token store and returns their
// ids; errors already carry their exit status.
func openFleet(ctx context.Context, c *Context) (*sdk.Fleet, []string, error) {
	st, err := tokenStore(c)
	if err != nil {
		return nil, nil, clientExit(err)
	}
	f, err := sdk.OpenFleet(ctx, &sdk.Options{Store: st})
	if err != nil {
		return nil, nil, clientExit(err)
	}
	ids := make([]string, 0, len(f.Boxes()))
	for _, b := range f.Boxes() {
		ids = append(ids, b.ID)
	}
	return f, ids, nil
}
