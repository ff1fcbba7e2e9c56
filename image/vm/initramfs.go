package vm

import (
	"compress/gzip"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// DoneMarker starts the console line the generated /init prints after the
// Run command, followed by its exit status: "openlolo-vm: done rc=0".
const DoneMarker = "openlolo-vm: done rc="

// Initramfs describes a test initramfs.
type Initramfs struct {
	// Kernel supplies the modules; required when Modules is not empty.
	Kernel *Kernel
	// Busybox is the static arm64 busybox binary (FetchBusybox); required.
	Busybox string
	// Modules are module names loaded at boot, with their dependencies,
	// in dependency order (insmod). Unknown names are an error.
	Modules []string
	// Files maps a guest path to a host file copied in with its
	// permission bits (e.g. the static test binary).
	Files map[string]string
	// Run is the shell command /init runs once the system is up; empty
	// means none. Its exit status is printed after DoneMarker.
	Run string
}

// initScript is the generated PID 1. %s is the command to run.
const initScript = `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
while read -r m; do
	insmod "/lib/modules/$m" || echo "openlolo-vm: insmod $m failed"
done < /etc/vm-modules
[ -d /sys/kernel/config ] && mount -t configfs none /sys/kernel/config
echo "openlolo-vm: up $(cut -d' ' -f1 /proc/uptime)s kernel $(uname -r)"
rc=0
%s
echo "` + DoneMarker + `$rc"
sync
poweroff -f
`

// BuildInitramfs writes spec as a gzip-compressed newc cpio archive to out.
func BuildInitramfs(spec Initramfs, out string) error {
	if spec.Busybox == "" {
		return fmt.Errorf("vm: initramfs: no busybox binary given")
	}
	var mods []string
	if len(spec.Modules) > 0 {
		if spec.Kernel == nil {
			return fmt.Errorf("vm: initramfs: modules %v need a kernel", spec.Modules)
		}
		var err error
		if mods, err = spec.Kernel.Modules(spec.Modules...); err != nil {
			return fmt.Errorf("vm: initramfs: %w", err)
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("vm: initramfs: %w", err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	c := &cpioWriter{w: zw}
	dirs := map[string]bool{}
	mkdirs := func(p string) {
		var todo []string
		for d := path.Dir(p); d != "/" && d != "." && !dirs[d]; d = path.Dir(d) {
			todo = append(todo, d)
			dirs[d] = true
		}
		for i := len(todo) - 1; i >= 0; i-- {
			c.Dir(todo[i], 0o755)
		}
	}
	addFile := func(guest, host string) error {
		b, err := os.ReadFile(host)
		if err != nil {
			return err
		}
		st, err := os.Stat(host)
		if err != nil {
			return err
		}
		mkdirs(guest)
		return c.File(guest, uint32(st.Mode().Perm()), b)
	}
	for _, d := range []string{"/bin", "/dev", "/proc", "/sys", "/tmp", "/etc", "/lib/modules"} {
		mkdirs(d + "/x")
	}
	c.CharDev("/dev/console", 0o600, 5, 1)
	c.CharDev("/dev/null", 0o666, 1, 3)
	run := spec.Run
	if run != "" {
		run += "\nrc=$?"
	}
	c.File("/init", 0o755, []byte(fmt.Sprintf(initScript, run)))
	if err := addFile("/bin/busybox", spec.Busybox); err != nil {
		return fail(f, out, fmt.Errorf("vm: initramfs: busybox: %w", err))
	}
	var list strings.Builder
	for _, m := range mods {
		guest := path.Join("/lib/modules", spec.Kernel.Version, filepath.ToSlash(m))
		if err := addFile(guest, filepath.Join(spec.Kernel.ModDir, m)); err != nil {
			return fail(f, out, fmt.Errorf("vm: initramfs: module: %w", err))
		}
		list.WriteString(path.Join(spec.Kernel.Version, filepath.ToSlash(m)) + "\n")
	}
	c.File("/etc/vm-modules", 0o644, []byte(list.String()))
	guests := make([]string, 0, len(spec.Files))
	for g := range spec.Files {
		guests = append(guests, g)
	}
	sort.Strings(guests)
	for _, g := range guests {
		if err := addFile(g, spec.Files[g]); err != nil {
			return fail(f, out, fmt.Errorf("vm: initramfs: file %s: %w", g, err))
		}
	}
	if err := c.Close(); err != nil {
		return fail(f, out, fmt.Errorf("vm: initramfs: %w", err))
	}
	if err := zw.Close(); err != nil {
		return fail(f, out, fmt.Errorf("vm: initramfs: %w", err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("vm: initramfs: %w", err)
	}
	return nil
}

// fail closes and removes a half-written output and returns err.
func fail(f *os.File, name string, err error) error {
	f.Close()
	os.Remove(name)
	return err
}
