package android

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"io"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// dumpFile is where uiautomator writes the screen's tree on the phone
// (shell may write /data/local/tmp; /dev/tty needs a terminal).
const dumpFile = "/data/local/tmp/openlolo-ui.xml"

// dumpTries is how often a dump is tried while the screen animates
// ("could not get idle state").
const dumpTries = 3

// maxDump bounds the XML the parser takes.
const maxDump = 8 << 20

// ErrDump: uiautomator's output is not a screen tree.
var ErrDump = errors.New("android: not a uiautomator dump")

// Elements lists the screen's elements from uiautomator's dump of the
// accessibility tree, trying again while the screen is busy.
func (b *Backend) Elements(ctx context.Context) (phone.ElementList, error) {
	c, _, err := b.current()
	if err != nil {
		return phone.ElementList{}, err
	}
	var out []byte
	for try := 1; ; try++ {
		res, err := c.Shell(ctx, "uiautomator dump "+dumpFile+" && cat "+dumpFile)
		if err != nil {
			return phone.ElementList{}, fmt.Errorf("android: uiautomator dump: %w", err)
		}
		if res.ExitCode <= 0 {
			out = res.Stdout
			break
		}
		msg := strings.TrimSpace(string(res.Stderr) + string(res.Stdout))
		if !strings.Contains(msg, "could not get idle state") || try == dumpTries {
			return phone.ElementList{}, fmt.Errorf("android: uiautomator dump (try %d): exit status %d: %s", try, res.ExitCode, clip(msg))
		}
		if err := b.o.Sleep(ctx, 200*time.Millisecond); err != nil {
			return phone.ElementList{}, err
		}
	}
	els, err := ParseDump(out)
	if err != nil {
		return phone.ElementList{}, err
	}
	return phone.ElementList{Source: api.SourceAccessibility, Geometry: b.State().Geometry, Elements: els}, nil
}

// ParseDump reads a uiautomator dump (what precedes its <?xml or
// <hierarchy, such as "UI hierchary dumped to:", is skipped) into the
// elements an agent acts on or reads, parents before children: those
// with text, a content description or an action (click, long click,
// check, scroll), and those whose class or resource id names what they
// are; bare layout containers are left out.
func ParseDump(b []byte) ([]phone.Element, error) {
	if len(b) > maxDump {
		return nil, fmt.Errorf("%w: %d bytes (at most %d)", ErrDump, len(b), maxDump)
	}
	start := bytes.Index(b, []byte("<hierarchy"))
	if start < 0 {
		return nil, fmt.Errorf("%w: no <hierarchy> in %q", ErrDump, clip(string(b)))
	}
	if x := bytes.LastIndex(b[:start], []byte("<?xml")); x >= 0 {
		start = x
	}
	d := xml.NewDecoder(bytes.NewReader(b[start:]))
	var els []phone.Element
	var lists []bool // per open node: it is a list
	closed := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDump, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "node" {
				continue
			}
			e, keep := nodeElement(t.Attr, inList(lists))
			lists = append(lists, e.Role == api.RoleList)
			if keep {
				els = append(els, e)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "node":
				if len(lists) > 0 {
					lists = lists[:len(lists)-1]
				}
			case "hierarchy":
				closed = true
			}
		}
		if closed {
			break
		}
	}
	if !closed {
		return nil, fmt.Errorf("%w: the dump ends before </hierarchy>", ErrDump)
	}
	return els, nil
}

func inList(lists []bool) bool {
	for _, l := range lists {
		if l {
			return true
		}
	}
	return false
}

// nodeElement is a node's element, and whether it is worth listing.
func nodeElement(attrs []xml.Attr, inList bool) (phone.Element, bool) {
	var e phone.Element
	var bounds string
	for _, a := range attrs {
		v := a.Value
		on := v == "true"
		switch a.Name.Local {
		case "text":
			e.Text = v
		case "content-desc":
			e.Label = v
		case "resource-id":
			e.Identifier = v
		case "class":
			e.Class = v
		case "bounds":
			bounds = v
		case "enabled":
			e.Enabled = on
		case "clickable":
			e.Clickable = on
		case "long-clickable":
			e.LongClickable = on
		case "checkable":
			e.Checkable = on
		case "checked":
			e.Checked = on
		case "selected":
			e.Selected = on
		case "focused":
			e.Focused = on
		case "scrollable":
			e.Scrollable = on
		case "password":
			e.Password = on
		}
	}
	r, ok := parseBounds(bounds)
	if !ok || r.Empty() {
		return e, false
	}
	e.Bounds = r
	e.Role = role(e, inList)
	actionable := e.Clickable || e.LongClickable || e.Checkable || e.Scrollable
	named := e.Text != "" || e.Label != ""
	return e, named || actionable || e.Role != api.RoleOther
}

// role maps an element's class (and what it does) onto the api's roles.
func role(e phone.Element, inList bool) api.ElementRole {
	cls := e.Class
	if i := strings.LastIndexAny(cls, ".$"); i >= 0 {
		cls = cls[i+1:]
	}
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(cls, x) {
				return true
			}
		}
		return false
	}
	switch {
	case has("EditText", "AutoCompleteTextView", "SearchView"):
		return api.RoleTextField
	case has("Switch", "ToggleButton"):
		return api.RoleSwitch
	case has("CheckBox", "RadioButton", "CheckedTextView"):
		return api.RoleCheckbox
	case has("Button"):
		return api.RoleButton
	case has("RecyclerView", "ListView", "GridView", "ScrollView", "ViewPager"):
		return api.RoleList
	case has("ImageView"):
		if e.Clickable {
			return api.RoleButton
		}
		return api.RoleImage
	case has("TextView"):
		if e.Clickable {
			return api.RoleButton
		}
		return api.RoleText
	case e.Checkable:
		return api.RoleCheckbox
	case e.Clickable && inList:
		return api.RoleCell
	case e.Clickable:
		return api.RoleButton
	}
	return api.RoleOther
}

// parseBounds reads "[x1,y1][x2,y2]".
func parseBounds(s string) (image.Rectangle, bool) {
	var r image.Rectangle
	n, err := fmt.Sscanf(s, "[%d,%d][%d,%d]", &r.Min.X, &r.Min.Y, &r.Max.X, &r.Max.Y)
	if err != nil || n != 4 || r.Min.X < 0 || r.Min.Y < 0 || r.Max.X > maxScreenSide || r.Max.Y > maxScreenSide {
		return image.Rectangle{}, false
	}
	return r.Canon(), true
}
