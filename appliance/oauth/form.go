package oauth

import (
	"errors"
	"mime"
	"net/http"
	"net/url"
)

// readForm parses an application/x-www-form-urlencoded POST body of at most
// maxFormBytes and returns its fields only (never the query string, where
// secrets must not travel). Repeated parameters are refused (RFC 6749 §3.1).
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, *Error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, errInvalidRequest("send the parameters as an application/x-www-form-urlencoded body")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: "invalid_request",
				Description: "the request body is larger than 64 KiB"}
		}
		return nil, errInvalidRequest("the form body could not be parsed: " + err.Error())
	}
	for k, v := range r.PostForm {
		if len(v) > 1 {
			return nil, errInvalidRequest("parameter " + quote(k) + " is repeated; send it once")
		}
	}
	return r.PostForm, nil
}
