package entry_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// netnsEnv names the test a re-executed test binary runs inside its own
// network namespace.
const netnsEnv = "OPENLOLO_TEST_NETNS"

// netnsSetup brings loopback up with multicast and routes the multicast
// range over it, so mDNS works with no other interface.
const netnsSetup = `ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo && exec "$@"`

// inNetns reports whether the test runs in a fresh network namespace that
// has only loopback. Called in the normal test process it re-runs this one
// test in such a namespace (unshare -n as root, unshare -rn otherwise),
// reports the child's output and result, and returns false: the caller
// returns. It skips, saying why, only when namespaces cannot be made here.
func inNetns(t *testing.T) bool {
	t.Helper()
	if os.Getenv(netnsEnv) == t.Name() {
		return true
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("skipped: this test needs the ip command (iproute2) to set up a network namespace")
	}
	unshare := []string{"unshare", "-n"}
	if os.Geteuid() != 0 {
		unshare = []string{"unshare", "-rn"}
	}
	if out, err := exec.Command(unshare[0], append(unshare[1:], "true")...).CombinedOutput(); err != nil {
		t.Skipf("skipped: cannot make a network namespace here (%s: %v %s); run as root or allow user namespaces",
			strings.Join(unshare, " "), err, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	args := append(unshare[1:], "sh", "-c", netnsSetup, "netns",
		os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1", "-test.timeout=4m")
	cmd := exec.CommandContext(ctx, unshare[0], args...)
	cmd.Env = append(os.Environ(), netnsEnv+"="+t.Name(),
		"TS_DISABLE_PORTMAPPER=1", "TS_NO_LOGS_NO_SUPPORT=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("in a network namespace: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("in a network namespace: the test did not run:\n%s", out)
	}
	t.Logf("in a network namespace:\n%s", out)
	return false
}
