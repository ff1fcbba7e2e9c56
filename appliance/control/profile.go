package control

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/profiles"
	"github.com/openlolo/openlolo/phone"
)

// Profiles are the app profiles the Service serves: the current set
// ([profiles.Store] is one, following the owner's file).
type Profiles interface {
	Current() *profiles.Set
}

// shippedOnly serves the shipped profiles when Config.Profiles is nil.
type shippedOnly struct{ set *profiles.Set }

func (s shippedOnly) Current() *profiles.Set { return s.set }

// AppProfiles is openlolo_app_profiles: the profiles of the phone's
// platform, filtered by query (a part of the name or bundle id).
func (s *Service) AppProfiles(ctx context.Context, c Client, a api.AppProfilesArgs) Reply[api.AppProfilesResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.AppProfilesResult](e))
	}
	if e := api.Length(api.ToolAppProfiles, "query", a.Query); e != nil {
		return reply(Fail[api.AppProfilesResult](e))
	}
	info := s.ph.Info()
	platform := info.Platform
	q := strings.ToLower(strings.TrimSpace(a.Query))
	res := &api.AppProfilesResult{Platform: platform, Profiles: []api.AppProfileSummary{}, Query: a.Query}
	for _, p := range s.profiles.Current().List(platform) {
		if q != "" && !strings.Contains(strings.ToLower(p.Name), q) && !strings.Contains(strings.ToLower(p.BundleID), q) {
			continue
		}
		links := make([]string, len(p.Links))
		for i, l := range p.Links {
			links[i] = l.Name
		}
		res.Profiles = append(res.Profiles, api.AppProfileSummary{BundleID: p.BundleID, Name: p.Name, Platform: p.Platform,
			URLSchemes: p.URLSchemes, Links: links, InCatalog: inCatalog(info.Apps, p.BundleID), Source: p.Source})
	}
	res.Matched = len(res.Profiles)
	return reply(OK(res))
}

// AppProfile is openlolo_app_profile: one profile by bundle id.
func (s *Service) AppProfile(ctx context.Context, c Client, a api.AppProfileArgs) Reply[api.AppProfileResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.AppProfileResult](e))
	}
	p, e := s.profile(a.BundleID)
	if e != nil {
		return reply(Fail[api.AppProfileResult](e))
	}
	return reply(OK(&api.AppProfileResult{Profile: p, InCatalog: inCatalog(s.ph.Info().Apps, p.BundleID)}))
}

// profile finds the profile of bundleID (its case aside).
func (s *Service) profile(bundleID string) (api.AppProfile, *Error) {
	id := strings.TrimSpace(bundleID)
	if id == "" {
		return api.AppProfile{}, invalid("argument %q is required: an app's bundle id, as openlolo_app_profiles lists them", "bundle_id")
	}
	if e := api.Length(api.ToolAppProfile, "bundle_id", id); e != nil {
		return api.AppProfile{}, e
	}
	set := s.profiles.Current()
	if p, ok := set.Get(id); ok {
		return p, nil
	}
	for _, p := range set.List("") {
		if strings.EqualFold(p.BundleID, id) {
			return p, nil
		}
	}
	return api.AppProfile{}, api.Errorf(api.CodeProfileNotFound, "this box has no profile for %q", api.Clip(id))
}

func inCatalog(apps []phone.App, bundleID string) bool {
	return slices.ContainsFunc(apps, func(a phone.App) bool { return strings.EqualFold(a.ID, bundleID) })
}

// OpenLink is openlolo_open_link: the URL of a profile's deep link, built
// from the parameters (checked by their types, percent-encoded), opened
// as openlolo_open_url opens URLs: natively where the phone can, else
// http and https through Safari.
func (s *Service) OpenLink(ctx context.Context, c Client, a api.OpenLinkArgs) Reply[api.OpenLinkResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.OpenLinkResult](e)
	}
	o, e := checkOptions(api.ToolOpenLink, &a.InputOptions)
	if e != nil {
		return refuseInput[api.OpenLinkResult](e)
	}
	if a.Link == "" {
		return refuseInput[api.OpenLinkResult](invalid("argument %q is required: a deep link's name, as openlolo_app_profile lists them", "link"))
	}
	if e := api.Length(api.ToolOpenLink, "link", a.Link); e != nil {
		return refuseInput[api.OpenLinkResult](e)
	}
	p, e := s.profile(a.BundleID)
	if e != nil {
		return refuseInput[api.OpenLinkResult](e)
	}
	info := s.ph.Info()
	if p.Platform != info.Platform {
		return refuseInput[api.OpenLinkResult](api.Errorf(api.CodeUnsupported, "%s's profile is for %s; the phone runs %s", p.BundleID, p.Platform, info.Platform))
	}
	u, e := profiles.Build(p, a.Link, a.Params)
	if e != nil {
		return refuseInput[api.OpenLinkResult](e)
	}
	// The template was checked when the profile was read: only the
	// scheme decides whether this phone opens it.
	if pu, err := url.Parse(u); err != nil || !phone.CanOpen(s.ph, pu) {
		return refuseInput[api.OpenLinkResult](api.Errorf(api.CodeUnsupported,
			"link %q opens a %s: URL, and this box opens only http and https (in Safari) on this phone%s", a.Link, scheme(u), webLinks(p)))
	}
	var safari phone.App
	if !info.Can.OpenURL {
		if safari, e = findApp(info.Apps, phone.SafariID); e != nil {
			return refuseInput[api.OpenLinkResult](api.Errorf(api.CodeUnsupported, "this phone's app catalog has no Safari to open links in"))
		}
	}
	return input[api.OpenLinkResult](ctx, s, c, api.ToolOpenLink, o, a, nil, func(ctx context.Context) (phone.Report, error) {
		return phone.OpenURLIn(ctx, s.ph, u, urlApp(u, p.BundleID), safari)
	}, func(r *api.OpenLinkResult) { r.URL, r.App = u, api.App{BundleID: p.BundleID, Name: p.Name} })
}

func scheme(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Scheme
	}
	return "?"
}

// webLinks names a profile's http(s) links, which open on any phone.
func webLinks(p api.AppProfile) string {
	var names []string
	for _, l := range p.Links {
		if strings.HasPrefix(l.URL, "https:") || strings.HasPrefix(l.URL, "http:") {
			names = append(names, l.Name)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("; %s has no web links, so openlolo_launch_app opens it instead", p.Name)
	}
	return fmt.Sprintf("; %s's web links open here: %s", p.Name, strings.Join(names, ", "))
}
