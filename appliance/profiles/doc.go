// Package profiles holds the box's app profiles: for each app, its bundle
// id, name and platform, the URL schemes it registers, its deep links with
// typed parameters, and known quirks as sentences. Profiles never hold
// coordinates: screens move with every app update.
//
// # Shipped profiles and the owner's file
//
// The box ships profiles for the simulated phone's apps and common real
// ones, iOS and Android (shipped/ios.json, shipped/android.json, embedded).
// The owner adds or replaces profiles in one file in the box's state
// directory, [FileName] (app-profiles.json), in the same format:
//
//	{"profiles": [
//	  {"bundle_id": "com.example.shop", "name": "Shop", "platform": "ios",
//	   "url_schemes": ["shop"],
//	   "links": [{"name": "item", "description": "One item's page.",
//	              "url": "shop://item/{id}?ref={ref}",
//	              "params": [{"name": "id", "type": "integer", "required": true},
//	                         {"name": "ref", "type": "string", "pattern": "[a-z]{1,12}"}]}],
//	   "quirks": ["Asks to sign in on the first start."]}]}
//
// A profile of the file replaces the shipped one with the same bundle id,
// whole. The [Store] reads the file again whenever it changes. A file that
// does not parse or validate is refused whole, with an error naming its
// line, column and field ([FileError]); the shipped profiles keep working.
// So is a file larger than [MaxFileSize] or nesting deeper than
// [MaxDepth], before it costs the box memory.
//
// # Links
//
// A link's url is a template: {name} stands for a parameter's value,
// checked against its type (string, integer, number, boolean; a string's
// pattern, a whole-value RE2 expression, or its enum), then percent-encoded
// (everything but A-Z a-z 0-9 - . _ ~). An optional parameter must be a
// whole query value (key={name}); when it is not given the pair is left
// out. [Build] makes the URL; its refusals carry the stable codes
// LINK_NOT_FOUND and LINK_PARAMS.
package profiles
