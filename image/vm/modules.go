package vm

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// moduleDeps is a parsed modules.dep: module path (relative to the module
// directory) → the paths it depends on, and module name → path.
type moduleDeps struct {
	deps   map[string][]string
	byName map[string]string
}

// modName turns a path or name into the kernel's module name: base name
// without .ko (and any compression suffix), with '-' read as '_'.
func modName(s string) string {
	s = filepath.Base(s)
	if i := strings.Index(s, ".ko"); i >= 0 {
		s = s[:i]
	}
	return strings.ReplaceAll(s, "-", "_")
}

// parseModulesDep reads modules.dep ("path: dep dep ...").
func parseModulesDep(r io.Reader) (*moduleDeps, error) {
	md := &moduleDeps{deps: map[string][]string{}, byName: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("modules.dep line %d: no colon in %q", n, line)
		}
		md.deps[k] = strings.Fields(v)
		md.byName[modName(k)] = k
	}
	return md, sc.Err()
}

// resolve returns the module paths needed for names, each after its
// dependencies, without repeats. Names in builtin are skipped.
func (md *moduleDeps) resolve(names []string, builtin map[string]bool) ([]string, error) {
	var order []string
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		// modules.dep lists dependencies with the last-loaded first.
		d := md.deps[p]
		for i := len(d) - 1; i >= 0; i-- {
			visit(d[i])
		}
		order = append(order, p)
	}
	for _, n := range names {
		p, ok := md.byName[modName(n)]
		if !ok {
			if builtin[modName(n)] {
				continue
			}
			return nil, fmt.Errorf("module %q is not in modules.dep nor built in", n)
		}
		visit(p)
	}
	return order, nil
}

// readBuiltin reads modules.builtin into a set of module names; a missing
// file is an empty set.
func readBuiltin(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, l := range strings.Fields(string(b)) {
		set[modName(l)] = true
	}
	return set, nil
}

// Modules returns the .ko paths (relative to k.ModDir) that loading names
// needs, dependencies first. Built-in modules are skipped; an unknown
// name is an error.
func (k *Kernel) Modules(names ...string) ([]string, error) {
	f, err := os.Open(filepath.Join(k.ModDir, "modules.dep"))
	if err != nil {
		return nil, fmt.Errorf("vm: modules: %w", err)
	}
	defer f.Close()
	md, err := parseModulesDep(f)
	if err != nil {
		return nil, fmt.Errorf("vm: modules: %w", err)
	}
	builtin, err := readBuiltin(filepath.Join(k.ModDir, "modules.builtin"))
	if err != nil {
		return nil, fmt.Errorf("vm: modules: %w", err)
	}
	order, err := md.resolve(names, builtin)
	if err != nil {
		return nil, fmt.Errorf("vm: modules for kernel %s: %w", k.Version, err)
	}
	return order, nil
}
