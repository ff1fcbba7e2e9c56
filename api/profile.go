package api

import "encoding/json"

// App profiles: what the box knows about an app beyond its bundle id (its
// URL schemes, deep links with typed parameters, known quirks), and the
// tools that read them and open their links. A profile never holds
// coordinates: screens move with every app update.

// ParamType is the type of a deep link's parameter.
type ParamType string

// Parameter types. A value may be sent as its JSON type or as a string
// that reads as one ("12" for an integer, "true" for a boolean).
const (
	ParamString  ParamType = "string"
	ParamInteger ParamType = "integer"
	ParamNumber  ParamType = "number"
	ParamBoolean ParamType = "boolean"
)

// Enum lists the parameter types.
func (ParamType) Enum() []string {
	return []string{string(ParamString), string(ParamInteger), string(ParamNumber), string(ParamBoolean)}
}

// Valid reports whether t is one of the parameter types.
func (t ParamType) Valid() bool {
	switch t {
	case ParamString, ParamInteger, ParamNumber, ParamBoolean:
		return true
	}
	return false
}

// ProfileSource says where a profile comes from.
type ProfileSource string

// Profile sources.
const (
	SourceShipped ProfileSource = "shipped" // built into the box
	SourceOwner   ProfileSource = "owner"   // the owner's file in the state directory
)

// LinkParam is one parameter of a deep link.
type LinkParam struct {
	Name        string    `json:"name" desc:"The name openlolo_open_link's params use; {name} in the link's url."`
	Type        ParamType `json:"type"`
	Required    bool      `json:"required"`
	Description string    `json:"description,omitempty"`
	Pattern     string    `json:"pattern,omitempty" desc:"Strings: a regular expression (RE2) the whole value must match."`
	Enum        []string  `json:"enum,omitempty" desc:"Strings: the only values allowed."`
}

// DeepLink is a link into an app, with its parameters.
type DeepLink struct {
	Name        string      `json:"name" desc:"What openlolo_open_link's link takes."`
	Description string      `json:"description"`
	URL         string      `json:"url" desc:"The template: {name} stands for a parameter's value, percent-encoded by the box; an optional parameter's query pair is left out when it is not given."`
	Params      []LinkParam `json:"params"`
}

// AppProfile is what the box knows about one app.
type AppProfile struct {
	BundleID   string        `json:"bundle_id"`
	Name       string        `json:"name"`
	Platform   Platform      `json:"platform"`
	URLSchemes []string      `json:"url_schemes" desc:"The URL schemes the app registers."`
	Links      []DeepLink    `json:"links"`
	Quirks     []string      `json:"quirks" desc:"Known behaviour worth knowing before acting in the app, as sentences."`
	Source     ProfileSource `json:"source" desc:"shipped (built into the box) or owner (the owner's file replaces or adds it)."`
}

// AppProfileSummary is a profile as openlolo_app_profiles lists it.
type AppProfileSummary struct {
	BundleID   string        `json:"bundle_id"`
	Name       string        `json:"name"`
	Platform   Platform      `json:"platform"`
	URLSchemes []string      `json:"url_schemes"`
	Links      []string      `json:"links" desc:"The names of its deep links (openlolo_app_profile gives their parameters)."`
	InCatalog  bool          `json:"in_catalog" desc:"openlolo_apps lists the app, so openlolo_launch_app opens it."`
	Source     ProfileSource `json:"source"`
}

// AppProfilesArgs are openlolo_app_profiles's arguments.
type AppProfilesArgs struct {
	Query string `json:"query,omitempty" doc:"Part of an app's name or bundle id; empty lists all."`
}

// AppProfilesResult is openlolo_app_profiles's result.
type AppProfilesResult struct {
	Platform Platform            `json:"platform" desc:"The phone's platform: the profiles listed are its."`
	Profiles []AppProfileSummary `json:"profiles"`
	Query    string              `json:"query"`
	Matched  int                 `json:"matched"`
}

// AppProfileArgs are openlolo_app_profile's arguments.
type AppProfileArgs struct {
	BundleID string `json:"bundle_id" doc:"The app's bundle id (e.g. com.apple.Maps), as openlolo_app_profiles lists it."`
}

// AppProfileResult is openlolo_app_profile's result.
type AppProfileResult struct {
	Profile   AppProfile `json:"profile"`
	InCatalog bool       `json:"in_catalog" desc:"openlolo_apps lists the app, so openlolo_launch_app opens it."`
}

// OpenLinkArgs are openlolo_open_link's arguments.
type OpenLinkArgs struct {
	PhoneArg
	InputOptions
	BundleID string `json:"bundle_id" doc:"The app whose profile has the link (openlolo_app_profiles lists them)."`
	Link     string `json:"link" desc:"The link's name (openlolo_app_profile)." doc:"The deep link's name, as openlolo_app_profile lists it."`
	// Params holds each parameter's value as sent, checked against the
	// link's parameter types.
	Params map[string]json.RawMessage `json:"params,omitempty" desc:"The link's parameters by name." doc:"The link's parameters by name: strings, numbers or booleans as each parameter's type says."`
}

// OpenLinkResult is openlolo_open_link's result.
type OpenLinkResult struct {
	InputResult
	URL string `json:"url" desc:"The URL the box built and opened."`
	App App    `json:"app" desc:"The app the link belongs to."`
}
