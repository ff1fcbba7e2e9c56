package wifi

import (
	"context"
	"fmt"
	"net/netip"
	"os/exec"
	"strings"
)

// Addrs sets an interface's IPv4 addresses with the ip tool (busybox's
// or iproute2's), as the image's DHCP client script does.
type Addrs struct {
	Path string // the ip binary; "" is "ip" on PATH
}

func (a Addrs) ip(ctx context.Context, args ...string) error {
	bin := a.Path
	if bin == "" {
		bin = "ip"
	}
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("wifi: ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Set makes p iface's only IPv4 address and brings iface up.
func (a Addrs) Set(ctx context.Context, iface string, p netip.Prefix) error {
	if !p.Addr().Is4() {
		return fmt.Errorf("wifi: address %v is not IPv4", p)
	}
	if err := a.Flush(ctx, iface); err != nil {
		return err
	}
	if err := a.ip(ctx, "-4", "addr", "add", p.String(), "dev", iface); err != nil {
		return err
	}
	return a.ip(ctx, "link", "set", iface, "up")
}

// Flush removes iface's IPv4 addresses (and so its routes).
func (a Addrs) Flush(ctx context.Context, iface string) error {
	return a.ip(ctx, "-4", "addr", "flush", "dev", iface)
}
