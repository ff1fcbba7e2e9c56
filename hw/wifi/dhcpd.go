package wifi

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"time"
)

// DHCPConfig is the setup network's DHCP service, served by busybox
// udhcpd: it is in both images already (Debian's busybox-static and
// Buildroot's busybox), so the box gains no binary and no Go DHCP code;
// the box's own captive DNS (appliance/setupnet) answers at Server, which
// the leases name as router and DNS server.
type DHCPConfig struct {
	Interface string       // e.g. wlan0
	Server    netip.Prefix // the box on the setup network, e.g. 192.168.4.1/24
	Leases    int          // how many addresses to hand out; 0 is 16
	Lease     time.Duration
	Dir       string // the lease file's folder
}

// Config returns udhcpd's configuration: addresses from Server+9 on,
// the box as router and DNS server, leases of Lease (0: 10 minutes, the
// setup network's window).
func (c DHCPConfig) Config() ([]byte, error) {
	if c.Interface == "" || strings.ContainsAny(c.Interface, "/ \t\n") {
		return nil, fmt.Errorf("wifi: udhcpd config: interface %q is not a name", c.Interface)
	}
	if !c.Server.IsValid() || !c.Server.Addr().Is4() || c.Server.Bits() < 16 || c.Server.Bits() > 28 {
		return nil, fmt.Errorf("wifi: udhcpd config: server %v is not an IPv4 address in a /16../28 network", c.Server)
	}
	n := c.Leases
	if n == 0 {
		n = 16
	}
	lease := c.Lease
	if lease == 0 {
		lease = 10 * time.Minute
	}
	start := c.Server.Addr()
	for range 9 {
		start = start.Next()
	}
	end := start
	for range n - 1 {
		end = end.Next()
	}
	if !c.Server.Masked().Contains(end) || end == broadcast(c.Server) {
		return nil, fmt.Errorf("wifi: udhcpd config: %d leases from %v do not fit in %v", n, start, c.Server.Masked())
	}
	if strings.ContainsAny(c.Dir, " \t\n") {
		return nil, fmt.Errorf("wifi: udhcpd config: folder %q has a space", c.Dir)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# openlolo setup network DHCP (generated; hw/wifi DHCPConfig)\n")
	fmt.Fprintf(&b, "interface %s\nstart %v\nend %v\nmax_leases %d\n", c.Interface, start, end, n)
	fmt.Fprintf(&b, "lease_file %s\npidfile %s\n", filepath.Join(c.Dir, "udhcpd.leases"), filepath.Join(c.Dir, "udhcpd.pid"))
	fmt.Fprintf(&b, "option subnet %s\noption router %v\noption dns %v\noption lease %d\n",
		mask(c.Server.Bits()), c.Server.Addr(), c.Server.Addr(), int(lease.Seconds()))
	return []byte(b.String()), nil
}

func mask(bits int) string {
	m := uint32(0xffffffff) << (32 - bits)
	return fmt.Sprintf("%d.%d.%d.%d", m>>24, m>>16&0xff, m>>8&0xff, m&0xff)
}

func broadcast(p netip.Prefix) netip.Addr {
	a := p.Masked().Addr().As4()
	host := uint32(0xffffffff) >> p.Bits()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3]) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// DHCPServer runs udhcpd for the setup network.
type DHCPServer struct {
	Path string // the udhcpd binary; "" is "udhcpd" on PATH
	Dir  string // where the configuration and leases go
	proc process
}

// Start writes the configuration and starts udhcpd in the foreground
// (its own process, ended by Stop). It returns once udhcpd has run for
// a moment without failing.
func (d *DHCPServer) Start(ctx context.Context, cfg DHCPConfig) error {
	cfg.Dir = d.Dir
	conf, err := cfg.Config()
	if err != nil {
		return err
	}
	bin := d.Path
	if bin == "" {
		bin = "udhcpd"
	}
	path, err := writeConf(d.Dir, "udhcpd.conf", conf)
	if err != nil {
		return fmt.Errorf("wifi: udhcpd: %w", err)
	}
	if err := touch(filepath.Join(d.Dir, "udhcpd.leases")); err != nil {
		return fmt.Errorf("wifi: udhcpd: %w", err)
	}
	if err := d.proc.start("udhcpd", bin, "-f", path); err != nil {
		return err
	}
	// udhcpd fails at once on a bad interface or a taken port.
	select {
	case <-time.After(300 * time.Millisecond):
		if err := d.proc.exited(); err != nil {
			return err
		}
		return nil
	case <-ctx.Done():
		_ = d.proc.stop()
		return fmt.Errorf("wifi: udhcpd: %w", ctx.Err())
	}
}

// Stop ends udhcpd.
func (d *DHCPServer) Stop() error { return d.proc.stop() }
