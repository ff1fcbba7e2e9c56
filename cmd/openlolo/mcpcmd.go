package main

import (
	"context"

	"github.com/openlolo/openlolo/sdk"
)

// mcpCmd serves MCP on stdin/stdout for a local agent and forwards every
// request to the box: claude mcp add openlolo -- openlolo mcp openlolo-1a2b.local
func mcpCmd(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "mcp", "BOX")
	pos, err := interleave(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) != 1 {
		return usagef("give one paired box: openlolo mcp openlolo-1a2b.local")
	}
	cl, err := dialBox(ctx, c, pos[0])
	if err != nil {
		return err
	}
	c.logger().Info("openlolo mcp: forwarding stdio MCP to the box", "box", cl.URL())
	return clientExit(sdk.Bridge(ctx, cl, c.Stdin, c.Stdout))
}
