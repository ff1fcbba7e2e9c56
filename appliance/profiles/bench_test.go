package profiles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/openlolo/openlolo/api"
)

// BenchmarkParse reads the shipped iOS file with positions and checks;
// BenchmarkParseBaseline is encoding/json alone on the same bytes.
func BenchmarkParse(b *testing.B) {
	data, err := shippedFS.ReadFile("shipped/ios.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("ios.json", data, api.SourceShipped); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseBaseline(b *testing.B) {
	data, err := shippedFS.ReadFile("shipped/ios.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var doc fileDoc
		if err := json.Unmarshal(data, &doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCurrent is one call's look at the owner's file (a stat) when it
// has not changed.
func BenchmarkCurrent(b *testing.B) {
	path := filepath.Join(b.TempDir(), FileName)
	if err := os.WriteFile(path, []byte(`{"profiles": []}`), 0o600); err != nil {
		b.Fatal(err)
	}
	s, err := Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s.Current()
	}
}

// BenchmarkBuild builds Maps's search link with two parameters.
func BenchmarkBuild(b *testing.B) {
	ps, err := Shipped()
	if err != nil {
		b.Fatal(err)
	}
	maps, _ := Merge(ps, nil).Get("com.apple.Maps")
	params := map[string]json.RawMessage{"query": json.RawMessage(`"coffee & cake"`), "zoom": json.RawMessage(`15`)}
	for b.Loop() {
		if _, e := Build(maps, "search", params); e != nil {
			b.Fatal(e)
		}
	}
}
