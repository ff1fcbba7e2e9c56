package adbtest

import (
	"slices"
	"testing"
)

func TestSplitShell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"input tap 1 2", []string{"input", "tap", "1", "2"}},
		{`input text 'it'\''s%s$HOME'`, []string{"input", "text", "it's%s$HOME"}},
		{`echo "a \"b\" \$c" d\ e`, []string{"echo", `a "b" $c`, "d e"}},
		{"uiautomator dump /f && cat /f", []string{"uiautomator", "dump", "/f", "&&", "cat", "/f"}},
		{"a ''", []string{"a", ""}},
	} {
		got, err := SplitShell(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitShell(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	// What the shell would expand or run must reach it quoted.
	for _, in := range []string{"echo $HOME", "a; reboot", "a | b", "echo `id`", "am start -d http://x/?a=1", "'open", `"open`, `"$(id)"`, "# comment"} {
		if got, err := SplitShell(in); err == nil {
			t.Errorf("SplitShell(%q) = %q, want an error", in, got)
		}
	}
}
