package oauth

import "net/http"

// DeviceCodeGrantType is the grant_type of RFC 8628's token request.
const DeviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

// authServerMetadata is the RFC 8414 document.
type authServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	DeviceAuthorizationEndpoint       string   `json:"device_authorization_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
	AuthorizationResponseIssParameter bool     `json:"authorization_response_iss_parameter_supported"`
}

// resourceMetadata is the RFC 9728 document.
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
}

func (s *Server) serveMetadata(w http.ResponseWriter, r *http.Request) {
	iss := s.issuer(r)
	w.Header().Set("Access-Control-Allow-Origin", "*") // public document; browser-based clients read it
	writeJSON(w, http.StatusOK, authServerMetadata{
		Issuer:                            iss,
		AuthorizationEndpoint:             iss + "/oauth/authorize",
		TokenEndpoint:                     iss + "/token",
		DeviceAuthorizationEndpoint:       iss + "/oauth/device_authorization",
		RegistrationEndpoint:              iss + "/oauth/register",
		RevocationEndpoint:                iss + "/oauth/revoke",
		ScopesSupported:                   clientScopes(),
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token", DeviceCodeGrantType},
		CodeChallengeMethodsSupported:     []string{"S256"},
		TokenEndpointAuthMethodsSupported: []string{"none"},
		RevocationEndpointAuthMethods:     []string{"none"},
		AuthorizationResponseIssParameter: true,
	})
}

func (s *Server) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	iss := s.issuer(r)
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, resourceMetadata{
		Resource:               iss + "/mcp",
		AuthorizationServers:   []string{iss},
		ScopesSupported:        clientScopes(),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "openlolo phone box",
	})
}
