package api

import (
	"slices"
	"strconv"
)

// Tool is a tool's name.
type Tool string

// The tools.
const (
	ToolStatus          Tool = "openlolo_status"
	ToolCapabilities    Tool = "openlolo_capabilities"
	ToolScreenshot      Tool = "openlolo_screenshot"
	ToolApps            Tool = "openlolo_apps"
	ToolDeviceInfo      Tool = "openlolo_device_info"
	ToolOperationStatus Tool = "openlolo_operation_status"
	ToolWatch           Tool = "openlolo_watch"
	ToolPause           Tool = "openlolo_pause"
	ToolTap             Tool = "openlolo_tap"
	ToolLongPress       Tool = "openlolo_long_press"
	ToolSwipe           Tool = "openlolo_swipe"
	ToolTypeText        Tool = "openlolo_type_text"
	ToolKey             Tool = "openlolo_key"
	ToolButton          Tool = "openlolo_button"
	ToolLaunchApp       Tool = "openlolo_launch_app"
	ToolOpenURL         Tool = "openlolo_open_url"
	ToolControl         Tool = "openlolo_control"
	ToolCancel          Tool = "openlolo_cancel"
	ToolFindText        Tool = "openlolo_find_text"
	ToolShortcut        Tool = "openlolo_shortcut"
	ToolAppProfiles     Tool = "openlolo_app_profiles"
	ToolAppProfile      Tool = "openlolo_app_profile"
	ToolOpenLink        Tool = "openlolo_open_link"
	ToolFullPage        Tool = "openlolo_full_page"
	ToolSendText        Tool = "openlolo_send_text"
	ToolClipboard       Tool = "openlolo_clipboard"
	ToolElements        Tool = "openlolo_elements"
	ToolPhones          Tool = "openlolo_phones"
)

// Scope is an OAuth scope a grant carries.
type Scope string

// Scopes. A client may ask for phone:read and phone:control; owner:admin
// is the owner's and never granted to a client.
const (
	ScopePhoneRead    Scope = "phone:read"
	ScopePhoneControl Scope = "phone:control"
	ScopeOwnerAdmin   Scope = "owner:admin"
)

// ClientScopes lists the scopes a client may ask for, in the order the
// box's metadata gives them.
func ClientScopes() []Scope { return []Scope{ScopePhoneRead, ScopePhoneControl} }

// Platform is the phone's operating system family.
type Platform string

// Platforms.
const (
	PlatformIOS     Platform = "ios"
	PlatformAndroid Platform = "android"
)

// KeyName is a key openlolo_key takes: one of [KeyNames]. It has no Enum
// method, so the input schema does not list the 62 names (a quarter of a
// kilobyte more on tools/list); openlolo_key's description gives them as
// ranges (a–z, 0–9, f1–f12) and words, and the box refuses any other
// (UNSUPPORTED_KEY).
type KeyName string

// Keys with a word for a name; the rest of [KeyNames] are a–z, 0–9 and
// f1–f12.
const (
	KeyEnter     KeyName = "enter"
	KeyEscape    KeyName = "escape"
	KeyBackspace KeyName = "backspace"
	KeyTab       KeyName = "tab"
	KeySpace     KeyName = "space"
	KeyUp        KeyName = "up"
	KeyDown      KeyName = "down"
	KeyLeft      KeyName = "left"
	KeyRight     KeyName = "right"
	KeyDelete    KeyName = "delete"
	KeyHome      KeyName = "home"
	KeyEnd       KeyName = "end"
	KeyPageUp    KeyName = "pageup"
	KeyPageDown  KeyName = "pagedown"
)

// FunctionKeys is how many function keys there are (f1 to f12).
const FunctionKeys = 12

// WordKeys lists the keys with a word for a name, in the order the schema
// gives them.
func WordKeys() []KeyName {
	return []KeyName{KeyEnter, KeyEscape, KeyBackspace, KeyTab, KeySpace, KeyUp, KeyDown, KeyLeft, KeyRight,
		KeyDelete, KeyHome, KeyEnd, KeyPageUp, KeyPageDown}
}

// KeyNames lists the key names openlolo_key takes, in the order the schema
// gives them: the [WordKeys], a–z, 0–9 and f1–f12.
func KeyNames() []string {
	var names []string
	for _, k := range WordKeys() {
		names = append(names, string(k))
	}
	for c := 'a'; c <= 'z'; c++ {
		names = append(names, string(c))
	}
	for c := '0'; c <= '9'; c++ {
		names = append(names, string(c))
	}
	for i := 1; i <= FunctionKeys; i++ {
		names = append(names, "f"+strconv.Itoa(i))
	}
	return names
}

// IsKey reports whether name (lower case) is one of [KeyNames].
func IsKey(name string) bool { return slices.Contains(KeyNames(), name) }

// Modifier is a key held during openlolo_key. Cmd is the GUI key (⌘ on
// iOS, Meta on Android).
type Modifier string

// Modifiers.
const (
	ModCtrl  Modifier = "ctrl"
	ModShift Modifier = "shift"
	ModAlt   Modifier = "alt"
	ModCmd   Modifier = "cmd"
)

// Enum lists the modifiers.
func (Modifier) Enum() []string {
	return []string{string(ModCtrl), string(ModShift), string(ModAlt), string(ModCmd)}
}

// Button is a hardware or system button openlolo_button presses.
type Button string

// Buttons. Back and AppSwitch exist on Android only.
const (
	ButtonHome       Button = "home"
	ButtonLock       Button = "lock"
	ButtonVolumeUp   Button = "volume_up"
	ButtonVolumeDown Button = "volume_down"
	ButtonMute       Button = "mute"
	ButtonBack       Button = "back"
	ButtonAppSwitch  Button = "app_switch"
)

// Enum lists the buttons.
func (Button) Enum() []string {
	return []string{string(ButtonHome), string(ButtonLock), string(ButtonVolumeUp), string(ButtonVolumeDown),
		string(ButtonMute), string(ButtonBack), string(ButtonAppSwitch)}
}

// Shortcut is a named shortcut openlolo_shortcut performs; which ones a
// phone takes depends on its platform ([Shortcuts]).
type Shortcut string

// Shortcuts by name. iOS: home, spotlight, select_all, copy, paste, undo,
// app_switcher; Android: home, back, recents, notifications.
const (
	ShortcutHome          Shortcut = "home"
	ShortcutSpotlight     Shortcut = "spotlight"
	ShortcutSelectAll     Shortcut = "select_all"
	ShortcutCopy          Shortcut = "copy"
	ShortcutPaste         Shortcut = "paste"
	ShortcutUndo          Shortcut = "undo"
	ShortcutAppSwitcher   Shortcut = "app_switcher"
	ShortcutBack          Shortcut = "back"
	ShortcutRecents       Shortcut = "recents"
	ShortcutNotifications Shortcut = "notifications"
)

// Enum lists every shortcut name of every platform.
func (Shortcut) Enum() []string {
	var out []string
	for _, s := range append(Shortcuts(PlatformIOS), Shortcuts(PlatformAndroid)[1:]...) {
		out = append(out, string(s))
	}
	return out
}

// Shortcuts lists the shortcuts of platform p (none for an unknown one).
func Shortcuts(p Platform) []Shortcut {
	switch p {
	case PlatformIOS:
		return []Shortcut{ShortcutHome, ShortcutSpotlight, ShortcutSelectAll, ShortcutCopy, ShortcutPaste, ShortcutUndo, ShortcutAppSwitcher}
	case PlatformAndroid:
		return []Shortcut{ShortcutHome, ShortcutBack, ShortcutRecents, ShortcutNotifications}
	}
	return nil
}

// ImageFormat is a screenshot's encoding.
type ImageFormat string

// Image formats.
const (
	FormatJPEG ImageFormat = "jpeg"
	FormatPNG  ImageFormat = "png"
)

// Enum lists the formats.
func (ImageFormat) Enum() []string { return []string{string(FormatJPEG), string(FormatPNG)} }

// PageOutput is what openlolo_full_page returns: each page's image, one
// stitched image of the whole page, or both.
type PageOutput string

// Full-page outputs.
const (
	OutputPages    PageOutput = "pages"
	OutputStitched PageOutput = "stitched"
	OutputBoth     PageOutput = "both"
)

// Enum lists the outputs.
func (PageOutput) Enum() []string {
	return []string{string(OutputPages), string(OutputStitched), string(OutputBoth)}
}

// Command is what openlolo_control does.
type Command string

// Control commands.
const (
	CommandAcquire Command = "acquire"
	CommandRenew   Command = "renew"
	CommandRelease Command = "release"
	CommandResume  Command = "resume"
)

// Enum lists the commands.
func (Command) Enum() []string {
	return []string{string(CommandAcquire), string(CommandRenew), string(CommandRelease), string(CommandResume)}
}

// Valid reports whether c is one of the commands.
func (c Command) Valid() bool {
	switch c {
	case CommandAcquire, CommandRenew, CommandRelease, CommandResume:
		return true
	}
	return false
}

// EventKind is the kind of an openlolo_watch event.
type EventKind string

// Event kinds.
const (
	KindFrame     EventKind = "frame"
	KindControl   EventKind = "control"
	KindPhone     EventKind = "phone"
	KindOperation EventKind = "operation"
	KindAccess    EventKind = "access"
	KindAsk       EventKind = "ask"
)

// Enum lists the event kinds.
func (EventKind) Enum() []string {
	return []string{string(KindFrame), string(KindControl), string(KindPhone), string(KindOperation), string(KindAccess), string(KindAsk)}
}
