package sim

// usRune returns the character a US keyboard layout types for a keyboard
// usage (HID page 0x07) with or without Shift, and false for keys that
// type nothing. The host keeps its own layout table, independent of the
// encoder's keymap in hw/hid, so a wrong keymap shows up as wrong text.
func usRune(usage uint8, shift bool) (rune, bool) {
	switch {
	case usage >= 0x04 && usage <= 0x1D: // a–z
		r := rune('a' + usage - 0x04)
		if shift {
			r -= 'a' - 'A'
		}
		return r, true
	case usage >= 0x1E && usage <= 0x27: // 1–9, 0
		i := usage - 0x1E
		if shift {
			return rune("!@#$%^&*()"[i]), true
		}
		return rune("1234567890"[i]), true
	case usage == keySpace:
		return ' ', true
	case usage >= 0x2D && usage <= 0x38 && usage != 0x32:
		// - = [ ] \ (0x32 non-US # skipped) ; ' ` , . /
		i := usage - 0x2D
		plain := "-=[]\\\x00;'`,./"
		shifted := "_+{}|\x00:\"~<>?"
		if shift {
			return rune(shifted[i]), true
		}
		return rune(plain[i]), true
	}
	return 0, false
}
