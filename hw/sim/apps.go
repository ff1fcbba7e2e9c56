package sim

import (
	"image/color"
	"strings"

	"github.com/openlolo/openlolo/phone"
)

// app is one app of the simulated phone's catalog: its bundle id, the name
// under its icon, its icon colour, and where the icon sits.
type app struct {
	id    string
	name  string
	color color.RGBA
	dock  bool // in the dock rather than the grid
}

// catalog returns the simulated phone's apps in home-screen order: the grid
// row by row, then the dock.
func catalog() []app {
	return []app{
		{id: "com.apple.mobilecal", name: "Calendar", color: rgb(0xF2, 0xF2, 0xF7)},
		{id: "com.apple.mobileslideshow", name: "Photos", color: rgb(0xFF, 0xB3, 0x40)},
		{id: "com.apple.camera", name: "Camera", color: rgb(0x8E, 0x8E, 0x93)},
		{id: "com.apple.mobilemail", name: "Mail", color: rgb(0x1E, 0x90, 0xFF)},
		{id: "com.apple.mobiletimer", name: "Clock", color: rgb(0x1C, 0x1C, 0x1E)},
		{id: "com.apple.Maps", name: "Maps", color: rgb(0x34, 0xC7, 0x59)},
		{id: "com.apple.weather", name: "Weather", color: rgb(0x3A, 0x8D, 0xDE)},
		{id: "com.apple.reminders", name: "Reminders", color: rgb(0xFF, 0x6B, 0x5B)},
		{id: "com.apple.mobilenotes", name: "Notes", color: rgb(0xFF, 0xCC, 0x00)},
		{id: "com.apple.stocks", name: "Stocks", color: rgb(0x2C, 0x2C, 0x2E)},
		{id: "com.apple.AppStore", name: "App Store", color: rgb(0x0A, 0x84, 0xFF)},
		{id: "com.apple.Preferences", name: "Settings", color: rgb(0x8E, 0x8E, 0x93)},
		{id: "com.apple.calculator", name: "Calculator", color: rgb(0xFF, 0x95, 0x00)},
		{id: "com.apple.DocumentsApp", name: "Files", color: rgb(0x5A, 0xC8, 0xFA)},
		{id: "com.apple.Health", name: "Health", color: rgb(0xFF, 0x2D, 0x55)},
		{id: "com.apple.Passbook", name: "Wallet", color: rgb(0x1C, 0x1C, 0x1E)},
		{id: "com.apple.mobilephone", name: "Phone", color: rgb(0x34, 0xC7, 0x59), dock: true},
		{id: "com.apple.mobilesafari", name: "Safari", color: rgb(0x0A, 0x84, 0xFF), dock: true},
		{id: "com.apple.MobileSMS", name: "Messages", color: rgb(0x30, 0xD1, 0x58), dock: true},
		{id: "com.apple.Music", name: "Music", color: rgb(0xFC, 0x3C, 0x44), dock: true},
	}
}

// phoneApps is the catalog as phone reports it.
func phoneApps(apps []app) []phone.App {
	out := make([]phone.App, len(apps))
	for i, a := range apps {
		out[i] = phone.App{ID: a.id, Name: a.name}
	}
	return out
}

// search returns the apps whose name matches query the way Spotlight does:
// names that start with it first, then names with a word that starts with
// it, then names that contain it; each group in catalog order. An empty
// query matches nothing.
func search(apps []app, query string) []app {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return nil
	}
	var prefix, word, contains []app
	for _, a := range apps {
		n := strings.ToLower(a.name)
		switch {
		case strings.HasPrefix(n, q):
			prefix = append(prefix, a)
		case strings.Contains(n, " "+q):
			word = append(word, a)
		case strings.Contains(n, q):
			contains = append(contains, a)
		}
	}
	return append(append(prefix, word...), contains...)
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{R: r, G: g, B: b, A: 0xFF} }
