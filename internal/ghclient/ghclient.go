// Package ghclient makes the one go-github client every GitHub API call of
// rubricgate goes through (artifacts, pull requests, comments).
//
// The token is sent only to the API's own origin (scheme, host and port):
// a redirect to any other host (a storage URL, or a hostile 302) is followed
// without the Authorization header. go-github's WithAuthToken, by contrast,
// adds the token to every request its transport sends, redirects included.
package ghclient

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/rubricgate/rubricgate/internal/origin"
)

// DefaultAPIURL is the API of github.com.
const DefaultAPIURL = "https://api.github.com"

// New returns a go-github client for apiURL (GITHUB_API_URL; empty:
// https://api.github.com) authenticated with token for that origin only. A
// trailing "/" is added to the base URL when missing, as go-github requires;
// GitHub Enterprise Server URLs (https://HOST/api/v3) work unchanged. hc may
// be nil (no timeout); it is copied, not changed.
func New(apiURL, token string, hc *http.Client) (*github.Client, error) {
	if token == "" {
		return nil, errors.New("github: no token given; pass the workflow token (github-token: ${{ github.token }})")
	}
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	u, err := url.Parse(apiURL)
	if err != nil {
		return nil, fmt.Errorf("github: API URL %q: %w", apiURL, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("github: API URL %q: expected an absolute http(s) URL like https://api.github.com", apiURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	var client http.Client
	if hc != nil {
		client = *hc
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	client.Transport = &tokenTransport{base: base, origin: origin.Of(u), auth: "Bearer " + token}
	c := github.NewClient(&client)
	c.BaseURL = u
	up := *u
	if strings.HasSuffix(up.Path, "/api/v3/") {
		up.Path = strings.TrimSuffix(up.Path, "api/v3/") + "api/uploads/"
		c.UploadURL = &up
	} else if u.Host != "api.github.com" {
		c.UploadURL = &up
	}
	return c, nil
}

// tokenTransport adds the token to requests for the API origin and removes
// any Authorization header from requests anywhere else.
type tokenTransport struct {
	base   http.RoundTripper
	origin string
	auth   string
}

// RoundTrip sends req, with the token only when it goes to the API origin.
func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if origin.Of(req.URL) == t.origin {
		r.Header.Set("Authorization", t.auth)
	} else {
		r.Header.Del("Authorization")
	}
	return t.base.RoundTrip(r)
}
