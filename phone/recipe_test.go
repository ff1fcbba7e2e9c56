package phone_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/phone"
)

// keys is a phone that records its inputs as words, with the time of each.
type keys struct {
	phone.Phone // nil: only the methods below are called
	info        phone.Info
	got         []string
	at          []time.Time
}

func (k *keys) Info() phone.Info { return k.info }

func (k *keys) log(s string) (phone.Report, error) {
	k.got, k.at = append(k.got, s), append(k.at, time.Now())
	return phone.Report{Reports: 2}, nil
}

func (k *keys) Press(_ context.Context, b phone.Button) (phone.Report, error) {
	return k.log("press " + string(b))
}

func (k *keys) Key(_ context.Context, key phone.Key) (phone.Report, error) {
	return k.log(fmt.Sprintf("key %s %d", key.Name, key.Mods))
}

func (k *keys) Type(_ context.Context, text string) (phone.Report, error) {
	return k.log("type " + text)
}

// native is keys that opens apps and URLs itself.
type native struct{ keys }

// inApp is native that also opens a URL in a named app.
type inApp struct{ native }

func (a *inApp) OpenURLIn(_ context.Context, u, id string) (phone.Report, error) {
	return a.log("open " + u + " in " + id)
}

func TestOpenURLIn(t *testing.T) {
	ctx := t.Context()
	safari := phone.App{ID: phone.SafariID, Name: "Safari"}
	a := &inApp{native{keys{info: phone.Info{Can: phone.Capabilities{OpenURL: true}}}}}
	phone.OpenURLIn(ctx, a, "myapp://x", "com.example.my", safari)
	phone.OpenURLIn(ctx, a, "https://e.com", "", safari)
	n := &native{keys{info: phone.Info{Can: phone.Capabilities{OpenURL: true}}}}
	phone.OpenURLIn(ctx, n, "myapp://y", "com.example.my", safari)
	if want := []string{"open myapp://x in com.example.my", "open https://e.com"}; !slices.Equal(a.got, want) {
		t.Errorf("in-app opener got %q, want %q", a.got, want)
	}
	if want := []string{"open myapp://y"}; !slices.Equal(n.got, want) {
		t.Errorf("plain native opener got %q, want %q", n.got, want)
	}
}

func (n *native) LaunchApp(_ context.Context, id string) (phone.Report, error) {
	return n.log("launch " + id)
}
func (n *native) OpenURL(_ context.Context, u string) (phone.Report, error) {
	return n.log("open " + u)
}

var (
	notes  = phone.App{ID: "com.apple.mobilenotes", Name: "Notes"}
	safari = phone.App{ID: phone.SafariID, Name: "Safari"}
)

func TestKeyboardRecipes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &keys{info: phone.Info{StepDelay: phone.DefaultStepDelay}}
		ctx := context.Background()
		rep, err := phone.OpenURL(ctx, k, "https://example.com", safari)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"press home", "key space 8", "type Safari", "key enter 0", "key l 8", "type https://example.com", "key enter 0"}
		if !slices.Equal(k.got, want) || rep.Reports != 2*len(want) {
			t.Fatalf("URL recipe %q (%d reports), want %q", k.got, rep.Reports, want)
		}
		for i := 1; i < len(k.at); i++ {
			if d := k.at[i].Sub(k.at[i-1]); d != phone.DefaultStepDelay {
				t.Errorf("step %d came %v after the one before, want %v", i, d, phone.DefaultStepDelay)
			}
		}
		if rep.Took != time.Duration(len(want)-1)*phone.DefaultStepDelay {
			t.Errorf("took %v", rep.Took)
		}
	})
}

func TestNativeRecipes(t *testing.T) {
	n := &native{keys{info: phone.Info{Can: phone.Capabilities{LaunchApp: true, OpenURL: true}}}}
	ctx := context.Background()
	if _, err := phone.LaunchApp(ctx, n, notes); err != nil {
		t.Fatal(err)
	}
	if _, err := phone.OpenURL(ctx, n, "myapp://x", safari); err != nil {
		t.Fatal(err)
	}
	if want := []string{"launch com.apple.mobilenotes", "open myapp://x"}; !slices.Equal(n.got, want) {
		t.Fatalf("native %q, want %q", n.got, want)
	}
	// A backend that reports native launch but cannot is refused, not
	// driven by keys.
	liar := &keys{info: phone.Info{Can: phone.Capabilities{LaunchApp: true}}}
	if _, err := phone.LaunchApp(ctx, liar, notes); !errors.Is(err, phone.ErrUnsupported) || len(liar.got) != 0 {
		t.Fatalf("LaunchApp on a backend without the method: %v, inputs %q", err, liar.got)
	}
}

func TestRecipeStopsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &keys{info: phone.Info{StepDelay: time.Second}}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(1500 * time.Millisecond); cancel() }()
		_, err := phone.LaunchApp(ctx, k, notes)
		if !errors.Is(err, context.Canceled) || len(k.got) != 2 {
			t.Fatalf("cancelled recipe: %v after %q", err, k.got)
		}
	})
}

// board is keys with a clipboard.
type board struct {
	keys
	clip string
	fail error
}

func (b *board) SetClipboard(_ context.Context, text string) error {
	if b.fail != nil {
		return b.fail
	}
	b.clip = text
	b.log("clipboard " + text)
	return nil
}

func (b *board) Clipboard(context.Context) (string, error) { return b.clip, nil }

func TestPaste(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		platform phone.Platform
		want     string
	}{{phone.IOS, "key v 8"}, {phone.Android, "key v 1"}} {
		b := &board{keys: keys{info: phone.Info{Platform: tc.platform, Keyboard: true, Can: phone.Capabilities{Clipboard: true}}}}
		if _, err := phone.Paste(ctx, b, "héllo ✓ 日本"); err != nil {
			t.Fatal(err)
		}
		if want := []string{"clipboard héllo ✓ 日本", tc.want}; !slices.Equal(b.got, want) {
			t.Errorf("%s paste %q, want %q", tc.platform, b.got, want)
		}
	}
	// Without a clipboard, a keyboard, or the method: nothing is sent.
	for name, b := range map[string]*board{
		"no clipboard": {keys: keys{info: phone.Info{Backend: "gadget", Keyboard: true}}},
		"no keyboard":  {keys: keys{info: phone.Info{Can: phone.Capabilities{Clipboard: true}}}},
	} {
		if _, err := phone.Paste(ctx, b, "x"); !errors.Is(err, phone.ErrUnsupported) || len(b.got) != 0 {
			t.Errorf("%s: %v, inputs %q", name, err, b.got)
		}
		if ok, why := phone.CanPaste(b.info); ok || why == "" {
			t.Errorf("%s: CanPaste %v %q", name, ok, why)
		}
	}
	liar := &keys{info: phone.Info{Keyboard: true, Can: phone.Capabilities{Clipboard: true}}}
	if _, err := phone.Paste(ctx, liar, "x"); !errors.Is(err, phone.ErrUnsupported) || len(liar.got) != 0 {
		t.Errorf("a backend without the Clipboard methods: %v, inputs %q", err, liar.got)
	}
	// A clipboard that fails: no paste key.
	bad := &board{keys: keys{info: phone.Info{Keyboard: true, Can: phone.Capabilities{Clipboard: true}}}, fail: phone.ErrInputFailed}
	if _, err := phone.Paste(ctx, bad, "x"); !errors.Is(err, phone.ErrInputFailed) || len(bad.got) != 0 {
		t.Errorf("failing clipboard: %v, inputs %q", err, bad.got)
	}
}
