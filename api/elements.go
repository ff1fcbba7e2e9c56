package api

// ElementRole is what an on-screen element is, as an agent names it
// (openlolo_elements' role). Backends map their own class names (Android
// widget classes, the simulator's node kinds) onto these; [ElementRoles]
// lists them all.
type ElementRole string

// Element roles.
const (
	RoleButton    ElementRole = "button"
	RoleTextField ElementRole = "text_field"
	RoleSwitch    ElementRole = "switch"
	RoleCheckbox  ElementRole = "checkbox"
	RoleText      ElementRole = "text"
	RoleImage     ElementRole = "image"
	RoleCell      ElementRole = "cell"
	RoleList      ElementRole = "list"
	RoleOther     ElementRole = "other"
)

// ElementRoles lists every element role.
func ElementRoles() []ElementRole {
	return []ElementRole{RoleButton, RoleTextField, RoleSwitch, RoleCheckbox, RoleText, RoleImage, RoleCell, RoleList, RoleOther}
}

// ElementSource says where a list of elements came from.
type ElementSource string

// Element sources.
const (
	// SourceAccessibility: the phone's own accessibility tree (Android's
	// uiautomator dump).
	SourceAccessibility ElementSource = "accessibility"
	// SourceSim: the simulated phone's real UI tree.
	SourceSim ElementSource = "sim"
	// SourceOCR: text lines found on the picture, one element each.
	SourceOCR ElementSource = "ocr"
)

// ElementSources lists every element source.
func ElementSources() []ElementSource {
	return []ElementSource{SourceAccessibility, SourceSim, SourceOCR}
}
