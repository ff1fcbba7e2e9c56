package control

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// ClipboardOffered reports whether openlolo_send_text and
// openlolo_clipboard work on a phone described by info (its backend sets
// and reads the clipboard and has a keyboard to paste with), and why not.
func ClipboardOffered(info phone.Info) (bool, string) { return phone.CanPaste(info) }

// Unoffered lists the tools the phone cannot do, which tools/list leaves
// out (a call still gets the verb's UNSUPPORTED answer): the clipboard
// tools unless [ClipboardOffered].
func (s *Service) Unoffered() []api.Tool {
	if ok, _ := ClipboardOffered(s.ph.Info()); !ok {
		return []api.Tool{api.ToolSendText, api.ToolClipboard}
	}
	return nil
}

// clipboardCapability is what openlolo_capabilities says about the
// clipboard tools.
func clipboardCapability(info phone.Info) api.ClipboardCapability {
	ok, why := ClipboardOffered(info)
	if !ok {
		return api.ClipboardCapability{Reason: why + "; openlolo_send_text and openlolo_clipboard are not offered, use openlolo_type_text"}
	}
	k := phone.PasteKey(info.Platform)
	mod := "cmd"
	if k.Mods == phone.Ctrl {
		mod = "ctrl"
	}
	return api.ClipboardCapability{Available: true, MaxChars: api.MaxSendText, Paste: mod + "+" + k.Name}
}

// unsupportedClipboard is the refusal on a phone without the clipboard
// tools.
func unsupportedClipboard(tool api.Tool, info phone.Info) *Error {
	_, why := ClipboardOffered(info)
	return api.Errorf(api.CodeUnsupported, "%s is not offered on this phone: %s; use openlolo_type_text for printable US ASCII", tool, why)
}

// checkSendText refuses text send_text cannot paste, before anything is
// sent: none, more than api.MaxSendText characters, not UTF-8, or a NUL.
func checkSendText(t *string) (string, *Error) {
	if t == nil || *t == "" {
		return "", invalid("argument \"text\" is required and must not be empty")
	}
	if !utf8.ValidString(*t) {
		return "", invalid("text is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(*t); n > api.MaxSendText {
		return "", invalid("text is %d characters; send_text takes up to %d per call", n, api.MaxSendText)
	}
	if i := strings.IndexByte(*t, 0); i >= 0 {
		return "", invalid("text has a NUL character at byte %d; leave it out", i)
	}
	return *t, nil
}

// SendText is openlolo_send_text: the text goes onto the phone's
// clipboard and is pasted into the focused field with the paste key
// (phone.Paste), so any Unicode arrives whole. It replaces the clipboard.
func (s *Service) SendText(ctx context.Context, c Client, a api.SendTextArgs) Reply[api.SendTextResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.SendTextResult](e)
	}
	o, e := checkOptions(api.ToolSendText, &a.InputOptions)
	if e != nil {
		return refuseInput[api.SendTextResult](e)
	}
	text, e := checkSendText(a.Text)
	if e != nil {
		return refuseInput[api.SendTextResult](e)
	}
	if info := s.ph.Info(); !phoneCanPaste(info) {
		return refuseInput[api.SendTextResult](unsupportedClipboard(api.ToolSendText, info))
	}
	return input[api.SendTextResult](ctx, s, c, api.ToolSendText, o, a, nil, func(ctx context.Context) (phone.Report, error) {
		return phone.Paste(ctx, s.ph, text)
	}, func(r *api.SendTextResult) {
		r.ClipboardReplaced = true
		r.Characters = utf8.RuneCountInString(text)
	})
}

func phoneCanPaste(info phone.Info) bool { ok, _ := ClipboardOffered(info); return ok }

// Clipboard is openlolo_clipboard: what the phone's clipboard holds.
func (s *Service) Clipboard(ctx context.Context, c Client, _ api.ClipboardArgs) Reply[api.ClipboardResult] {
	if e := s.admit(c); e != nil {
		return reply(Fail[api.ClipboardResult](e))
	}
	info := s.ph.Info()
	cb, ok := s.ph.(phone.Clipboard)
	if !phoneCanPaste(info) || !ok {
		return reply(Fail[api.ClipboardResult](unsupportedClipboard(api.ToolClipboard, info)))
	}
	text, err := cb.Clipboard(ctx)
	if err != nil {
		return reply(Fail[api.ClipboardResult](PhoneError(err)))
	}
	return reply(OK(&api.ClipboardResult{Text: text, Characters: utf8.RuneCountInString(text)}))
}
