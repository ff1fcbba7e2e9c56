package integration

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's "Use it from a script or an agent" section is run as
// written: every `bin/openlolo …` command line in it, against a real box,
// with the box address of the example replaced by the test box's.
func TestREADMEScriptSection(t *testing.T) {
	cmds := readmeCommands(t, "## Use it from a script or an agent")
	if len(cmds) < 5 {
		t.Fatalf("the README section has %d command lines; expected pair, calls and boxes", len(cmds))
	}
	tb := startBox(t, "", false)
	store := filepath.Join(t.TempDir(), "boxes.json")
	work := t.TempDir()
	for _, line := range cmds {
		args := shellWords(t, line)
		if args[0] == "claude" {
			// The agent line: what it registers is `openlolo mcp BOX`,
			// which TestMCPStdioBridge drives; check it names that.
			if i := indexOf(args, "--"); i < 0 || strings.Join(args[i+1:i+3], " ") != "openlolo mcp" {
				t.Errorf("agent line %q does not register `openlolo mcp BOX`", line)
			}
			continue
		}
		if args[0] != "bin/openlolo" {
			t.Fatalf("README command %q does not start with bin/openlolo", line)
		}
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "openlolo-xxxx.local", tb.URL)
			if a == "shot.jpg" {
				args[i] = filepath.Join(work, a)
			}
		}
		t.Logf("$ %s", strings.Join(args, " "))
		if args[1] == "pair" {
			cliPair(t, tb, store, defaultClientName())
			continue
		}
		out, errOut, code := cli(t, store, "", args[1:]...)
		if code != 0 {
			t.Fatalf("README command %q: exit %d\nstdout: %s\nstderr: %s", line, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "shot.jpg")); err != nil {
		t.Fatalf("the README's screenshot command wrote no shot.jpg: %v", err)
	}
	if got := tb.Sim.NoteText(); !strings.Contains(got, "Hello, box!") {
		t.Fatalf("after the README's commands the note holds %q", got)
	}
	if tb.Sim.Screen() != "home" {
		t.Fatalf("after the README's home button the phone shows %q", tb.Sim.Screen())
	}
}

// defaultClientName is what `openlolo pair` calls itself without --name.
func defaultClientName() string {
	h, _ := os.Hostname()
	return "openlolo on " + h
}

// readmeCommands returns the indented code lines of a README section that
// run something (bin/openlolo or claude).
func readmeCommands(t *testing.T, heading string) []string {
	t.Helper()
	f, err := os.Open("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == heading
			continue
		}
		if in && strings.HasPrefix(line, "    ") {
			cmd := strings.TrimSpace(line)
			if strings.HasPrefix(cmd, "bin/openlolo ") || strings.HasPrefix(cmd, "claude ") {
				out = append(out, cmd)
			}
		}
	}
	return out
}

// shellWords splits a command line the way sh would for the simple lines
// the README uses: spaces separate, single quotes group.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inQuote, have := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			inQuote, have = !inQuote, true
		case r == ' ' && !inQuote:
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if inQuote {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if have {
		words = append(words, cur.String())
	}
	return words
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}
