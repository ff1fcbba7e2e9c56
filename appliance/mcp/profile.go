package mcp

import (
	"fmt"

	"github.com/openlolo/openlolo/api"
)

// The sentences of the app profile tools.

func sayAppProfiles(_ api.Outcome, r *api.AppProfilesResult) string {
	return fmt.Sprintf("%d app profiles for %s in the structured answer; openlolo_app_profile gives one with its links and quirks.", r.Matched, r.Platform)
}

func sayAppProfile(_ api.Outcome, r *api.AppProfileResult) string {
	return fmt.Sprintf("%s's profile (%s): %d deep links, %d quirks, in the structured answer.", r.Profile.Name, r.Profile.BundleID, len(r.Profile.Links), len(r.Profile.Quirks))
}

func sayOpenLink(o api.Outcome, r *api.OpenLinkResult) string {
	return sayInput[api.OpenLinkResult]("Opened "+r.URL)(o, r)
}
