package phone

import (
	"context"
	"fmt"
	"net/url"
	"time"
)

// SafariID is the browser the URL recipe opens.
const SafariID = "com.apple.mobilesafari"

// LaunchApp opens app on p: natively when p can ([Capabilities.LaunchApp]),
// else through the phone's search: Home, search (cmd+space), the app's
// display name, Enter.
func LaunchApp(ctx context.Context, p Phone, app App) (Report, error) {
	info := p.Info()
	if info.Can.LaunchApp {
		l, ok := p.(AppLauncher)
		if !ok {
			return Report{}, fmt.Errorf("phone: launch %s: the backend reports native launch but cannot: %w", app.ID, ErrUnsupported)
		}
		return l.LaunchApp(ctx, app.ID)
	}
	return steps(ctx, info.StepDelay, launchSteps(p, app)...)
}

// CanOpen reports whether p opens URLs of u's scheme: any scheme natively,
// else http and https through the browser.
func CanOpen(p Phone, u *url.URL) bool {
	return p.Info().Can.OpenURL || u.Scheme == "http" || u.Scheme == "https"
}

// OpenURL opens u on p: natively when p can ([Capabilities.OpenURL]),
// else, for http and https, by typing it into the browser's address bar
// (browser is the app to open, normally Safari from p's catalog).
func OpenURL(ctx context.Context, p Phone, u string, browser App) (Report, error) {
	info := p.Info()
	if info.Can.OpenURL {
		o, ok := p.(URLOpener)
		if !ok {
			return Report{}, fmt.Errorf("phone: open %s: the backend reports native URL opening but cannot: %w", u, ErrUnsupported)
		}
		return o.OpenURL(ctx, u)
	}
	fns := append(launchSteps(p, browser),
		func(ctx context.Context) (Report, error) { return p.Key(ctx, Key{Name: "l", Mods: Cmd}) },
		func(ctx context.Context) (Report, error) { return p.Type(ctx, u) },
		func(ctx context.Context) (Report, error) { return p.Key(ctx, Key{Name: "enter"}) },
	)
	return steps(ctx, info.StepDelay, fns...)
}

// AppURLOpener is a [URLOpener] that can be told which app takes a URL
// (the app its scheme belongs to), e.g. from the URL's app profile or
// the caller's bundle id.
type AppURLOpener interface {
	OpenURLIn(ctx context.Context, url, bundleID string) (Report, error)
}

// OpenURLIn opens u on p in the app bundleID where p can do that
// natively ([AppURLOpener]); with no bundleID, or on any other phone, it
// is [OpenURL].
func OpenURLIn(ctx context.Context, p Phone, u, bundleID string, browser App) (Report, error) {
	if o, ok := p.(AppURLOpener); ok && bundleID != "" && p.Info().Can.OpenURL {
		return o.OpenURLIn(ctx, u, bundleID)
	}
	return OpenURL(ctx, p, u, browser)
}

type step func(ctx context.Context) (Report, error)

func launchSteps(p Phone, app App) []step {
	return []step{
		func(ctx context.Context) (Report, error) { return p.Press(ctx, Home) },
		func(ctx context.Context) (Report, error) { return p.Key(ctx, Key{Name: "space", Mods: Cmd}) },
		func(ctx context.Context) (Report, error) { return p.Type(ctx, app.Name) },
		func(ctx context.Context) (Report, error) { return p.Key(ctx, Key{Name: "enter"}) },
	}
}

// steps runs fns in order, waiting delay between them; the report sums
// the reports written and times the whole recipe.
func steps(ctx context.Context, delay time.Duration, fns ...step) (Report, error) {
	var total Report
	start := time.Now()
	for i, fn := range fns {
		if i > 0 && delay > 0 {
			if err := Sleep(ctx, delay); err != nil {
				return total, err
			}
		}
		rep, err := fn(ctx)
		total.Reports += rep.Reports
		if err != nil {
			return total, err
		}
	}
	total.Took = time.Since(start)
	return total, nil
}
