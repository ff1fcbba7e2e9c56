package sdk

import (
	"encoding/json"
	"testing"
)

// The client's protocol metadata is kept from the box; the rest of _meta
// and of the params passes on, and params without it are left as sent.
func TestParamsWithoutProtocolMeta(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"name":"openlolo_status","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","openlolo.mcp":{"structured":true}}}`,
			`{"_meta":{"openlolo.mcp":{"structured":true}},"name":"openlolo_status"}`},
		{`{"name":"openlolo_status","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"x"}}}`,
			`{"name":"openlolo_status"}`},
		{`{"name":"openlolo_status","_meta":{"progressToken":7}}`, `{"name":"openlolo_status","_meta":{"progressToken":7}}`},
		{`{"name":"openlolo_status"}`, `{"name":"openlolo_status"}`},
		{`[1,2]`, `[1,2]`},
	} {
		got := paramsWithoutProtocolMeta(json.RawMessage(tc.in))
		if string(got) != tc.want {
			t.Errorf("paramsWithoutProtocolMeta(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
