package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/profiles"
)

// profilesCmd checks the owner's app profile file before the box reads it:
// openlolo profiles check --state DIR (its app-profiles.json) or FILE.
func profilesCmd(ctx context.Context, c *Context, args []string) error {
	if len(args) == 0 || args[0] != "check" {
		return usagef("usage: openlolo profiles check --state DIR | FILE")
	}
	fs := flags(c, "profiles check", "--state DIR | FILE")
	state := fs.String("state", "", "the box's state directory (checks its "+profiles.FileName+")")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	var path string
	switch {
	case *state != "" && fs.NArg() == 0:
		path = filepath.Join(*state, profiles.FileName)
	case *state == "" && fs.NArg() == 1:
		path = fs.Arg(0)
	default:
		return usagef("give either --state DIR or one FILE, not both")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	owner, err := profiles.Parse(path, b, api.SourceOwner)
	if err != nil {
		return err
	}
	shipped, err := profiles.Shipped()
	if err != nil {
		return err
	}
	var replaced, added []string
	for _, p := range owner {
		if slices.ContainsFunc(shipped, func(s api.AppProfile) bool { return s.BundleID == p.BundleID }) {
			replaced = append(replaced, p.BundleID)
		} else {
			added = append(added, p.BundleID)
		}
	}
	fmt.Fprintf(c.Stdout, "%s: %d profiles, all valid; %d replace shipped ones %v, %d are new %v\n",
		path, len(owner), len(replaced), replaced, len(added), added)
	return nil
}
