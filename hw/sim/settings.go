package sim

import (
	"image"
	"image/color"
)

// airplaneRow is the Settings row with a switch (Airplane Mode) in place
// of the chevron: a control with no text of its own.
const airplaneRow = 0

// settingRow is one row of the simulated Settings list.
type settingRow struct {
	name  string
	color color.RGBA
	group int
}

// settingsRows returns the Settings list, group by group. It is long enough
// that the list scrolls on every supported screen size.
func settingsRows() []settingRow {
	groups := [][]struct {
		name string
		c    color.RGBA
	}{
		{{"Airplane Mode", rgb(0xFF, 0x95, 0x00)}, {"Wi-Fi", rgb(0x0A, 0x84, 0xFF)}, {"Bluetooth", rgb(0x0A, 0x84, 0xFF)},
			{"Cellular", rgb(0x34, 0xC7, 0x59)}, {"Personal Hotspot", rgb(0x34, 0xC7, 0x59)}, {"VPN", rgb(0x0A, 0x84, 0xFF)}},
		{{"Notifications", rgb(0xFF, 0x3B, 0x30)}, {"Sounds & Haptics", rgb(0xFF, 0x2D, 0x55)}, {"Focus", rgb(0x5E, 0x5C, 0xE6)},
			{"Screen Time", rgb(0x5E, 0x5C, 0xE6)}},
		{{"General", rgb(0x8E, 0x8E, 0x93)}, {"Control Center", rgb(0x8E, 0x8E, 0x93)}, {"Display & Brightness", rgb(0x0A, 0x84, 0xFF)},
			{"Home Screen & App Library", rgb(0x5E, 0x5C, 0xE6)}, {"Accessibility", rgb(0x0A, 0x84, 0xFF)}, {"Wallpaper", rgb(0x32, 0xAD, 0xE6)},
			{"StandBy", rgb(0x1C, 0x1C, 0x1E)}, {"Siri & Search", rgb(0x1C, 0x1C, 0x1E)}, {"Face ID & Passcode", rgb(0x34, 0xC7, 0x59)},
			{"Emergency SOS", rgb(0xFF, 0x3B, 0x30)}, {"Exposure Notifications", rgb(0xFF, 0x3B, 0x30)}, {"Battery", rgb(0x34, 0xC7, 0x59)},
			{"Privacy & Security", rgb(0x0A, 0x84, 0xFF)}},
		{{"App Store", rgb(0x0A, 0x84, 0xFF)}, {"Wallet & Apple Pay", rgb(0x1C, 0x1C, 0x1E)}},
		{{"Passwords", rgb(0x8E, 0x8E, 0x93)}, {"Mail", rgb(0x1E, 0x90, 0xFF)}, {"Contacts", rgb(0x8E, 0x8E, 0x93)},
			{"Calendar", rgb(0xFF, 0x3B, 0x30)}, {"Notes", rgb(0xFF, 0xCC, 0x00)}, {"Reminders", rgb(0xFF, 0x6B, 0x5B)},
			{"Phone", rgb(0x34, 0xC7, 0x59)}, {"Messages", rgb(0x30, 0xD1, 0x58)}, {"FaceTime", rgb(0x34, 0xC7, 0x59)},
			{"Safari", rgb(0x0A, 0x84, 0xFF)}, {"Stocks", rgb(0x1C, 0x1C, 0x1E)}, {"Weather", rgb(0x3A, 0x8D, 0xDE)},
			{"Translate", rgb(0x0A, 0x84, 0xFF)}, {"Maps", rgb(0x34, 0xC7, 0x59)}, {"Compass", rgb(0x1C, 0x1C, 0x1E)},
			{"Measure", rgb(0x1C, 0x1C, 0x1E)}, {"Shortcuts", rgb(0x5E, 0x5C, 0xE6)}, {"Health", rgb(0xFF, 0x2D, 0x55)}},
	}
	var rows []settingRow
	for g, grp := range groups {
		for _, r := range grp {
			rows = append(rows, settingRow{name: r.name, color: r.c, group: g})
		}
	}
	return rows
}

// settingRowSpan is the top and bottom of row i in points, in the list's
// own (unscrolled) coordinates.
func settingRowSpan(i int, rows []settingRow) (top, bottom float64) {
	top = settingsTop + settingRowH*float64(i) + settingsGap*float64(rows[i].group)
	return top, top + settingRowH
}

// settingRowRect is row i of rows on the screen in pixels, the list
// scrolled by off pixels.
func (l layout) settingRowRect(i int, rows []settingRow, off int) image.Rectangle {
	top, bottom := settingRowSpan(i, rows)
	return image.Rect(l.px(16), l.px(top)-off, l.size.X-l.px(16), l.px(bottom)-off)
}

// switchRect is the switch at the right end of a Settings row.
func (l layout) switchRect(row image.Rectangle) image.Rectangle {
	cy := (row.Min.Y + row.Max.Y) / 2
	x1 := row.Max.X - l.px(16)
	return image.Rect(x1-l.px(51), cy-l.px(15.5), x1, cy+l.px(15.5))
}
