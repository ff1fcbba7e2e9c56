// Command sizereport prints, as Markdown, what each package and module
// adds to a Go binary: the sizes of its symbols in the sections the binary
// carries (code, read-only data, data; not bss, which takes no room in the
// file), as `go tool nm -size -sort size` lists them, summed per package.
// The binary must be unstripped (no -s -w). `make size` runs it on the
// arm64 box build and writes docs/size.md.
//
//	go run ./cmd/sizereport [-top 40] [-stripped FILE] BINARY
//
// The symbol sizes add up to less than the file: the rest is the
// function tables (pclntab: about a third of a Go binary, roughly in
// proportion to the code), type data and the ELF structure.
package main

import (
	"bytes"
	"cmp"
	"debug/elf"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	top := flag.Int("top", 40, "how many packages to list")
	stripped := flag.String("stripped", "", "the stripped build of the same source and tags (what ships), to name its size")
	notes := flag.String("notes", "", "a Markdown file kept by hand (the cuts measured), appended to the report")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: sizereport [-top N] [-stripped FILE] [-notes FILE] BINARY (an unstripped build)")
		os.Exit(2)
	}
	var buf bytes.Buffer
	err := report(&buf, flag.Arg(0), *stripped, *top)
	if err == nil && *notes != "" {
		err = appendNotes(&buf, *notes)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sizereport:", err)
		os.Exit(1)
	}
	os.Stdout.Write(buf.Bytes())
}

// appendNotes writes the hand-kept Markdown at path after the report,
// one blank line below it.
func appendNotes(w io.Writer, path string) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("notes: %w", err)
	}
	_, err = fmt.Fprintf(w, "\n%s", text)
	return err
}

// entry is one package's or module's share.
type entry struct {
	name string
	size uint64
}

const intro = `# What the box's binary is made of

Made by ` + "`make size`" + ` (do not edit): ` + "`make arm64`" + `'s build without -s -w, its symbols
(as ` + "`go tool nm -size -sort size`" + ` lists them) summed per package and module by
cmd/sizereport. Symbols add up to less than the file: the rest is the function tables
(pclntab, roughly in proportion to the code), type data and the ELF structure, so a
package's share of the shipped file is about its share below. C is SQLite, libc and
libjpeg-turbo; "go:" the compiler's tables. The Tailscale features built out are in
cmd/openlolo/tailscale-omit.tags, the SQLite ones in cmd/openlolo/sqlite-size.h; the
cuts measured, kept and refused are at the end (kept by hand in docs/size-cuts.md).

`

func report(w io.Writer, path, stripped string, top int) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return fmt.Errorf("%s: symbols (is it stripped?): %w", path, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	pkgs := map[string]uint64{}
	mods := map[string]uint64{}
	var total uint64
	for _, s := range syms {
		if int(s.Section) >= len(f.Sections) || s.Size == 0 {
			continue // undefined, absolute or common
		}
		if f.Sections[s.Section].Type == elf.SHT_NOBITS {
			continue // bss: no room in the file
		}
		p := packageOf(s.Name)
		pkgs[p] += s.Size
		mods[moduleOf(p)] += s.Size
		total += s.Size
	}
	fmt.Fprint(w, intro)
	if stripped != "" {
		sst, err := os.Stat(stripped)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "Shipped (stripped) binary: %.1f MB. ", mb(uint64(sst.Size())))
	}
	fmt.Fprintf(w, "Unstripped: %.1f MB; symbols: %.1f MB in %d packages.\n\n", mb(uint64(st.Size())), mb(total), len(pkgs))
	fmt.Fprintln(w, "## By module")
	table(w, sorted(mods), 0, total)
	fmt.Fprintf(w, "\n## The %d largest packages\n", top)
	table(w, sorted(pkgs), top, total)
	return nil
}

func sorted(m map[string]uint64) []entry {
	var es []entry
	for k, v := range m {
		es = append(es, entry{k, v})
	}
	slices.SortFunc(es, func(a, b entry) int {
		return cmp.Or(cmp.Compare(b.size, a.size), strings.Compare(a.name, b.name))
	})
	return es
}

func table(w io.Writer, es []entry, top int, total uint64) {
	fmt.Fprintln(w, "\n| KB | % | name |\n|---:|---:|---|")
	for i, e := range es {
		if top > 0 && i == top || e.size < 1000 {
			break
		}
		fmt.Fprintf(w, "| %d | %.1f | %s |\n", e.size/1000, 100*float64(e.size)/float64(total), e.name)
	}
}

func mb(n uint64) float64 { return float64(n) / 1e6 }

// packageOf is the import path of a symbol's package: the name up to the
// first dot after its last slash ("net/http.(*Server).Serve" →
// "net/http"). Compiler-made names (type:, go:) keep their prefix; C
// symbols (no dot or slash; SQLite, libc, libjpeg-turbo) count as "C".
func packageOf(name string) string {
	if i := strings.Index(name, "["); i >= 0 {
		name = name[:i] // a generic instance: the package of its function
	}
	for _, p := range []string{"type:.eq.", "type:.hash.", "go:itab.", "go:"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			if p == "go:" {
				return "go: (compiler tables)"
			}
			name = rest
		}
	}
	if strings.HasPrefix(name, "type:") {
		return "type: (type data)"
	}
	name = strings.TrimLeft(name, "*")
	if strings.HasPrefix(name, "struct {") || strings.HasPrefix(name, "go.shape.") || strings.HasPrefix(name, "embed.") {
		return "other (anonymous types, shapes)"
	}
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		if slash < 0 {
			return "C"
		}
		return name
	}
	return name[:slash+1+dot]
}

// moduleOf guesses the module of an import path: the standard library
// for a first element without a dot, else the first three elements for
// github.com and the like, the first for the rest (tailscale.com).
func moduleOf(pkg string) string {
	parts := strings.Split(pkg, "/")
	switch {
	case !strings.Contains(parts[0], ".") || strings.Contains(pkg, " "):
		if pkg == "C" || strings.Contains(pkg, " ") {
			return pkg
		}
		return "std"
	case len(parts) >= 3 && (parts[0] == "github.com" || parts[0] == "golang.org" || parts[0] == "periph.io"):
		return strings.Join(parts[:3], "/")
	default:
		return parts[0]
	}
}
