package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/rubricgate/rubricgate/internal/origin"
	"github.com/rubricgate/rubricgate/internal/version"
)

// maxResponseBytes caps the body of one API answer: a judge answer is a few
// kilobytes; anything past this is not an answer the judge can use.
const maxResponseBytes = 8 << 20

// apiClient sends JSON requests to one API over net/http: the small typed
// client the providers share. It never retries (the runner does).
//
// The key goes to the configured origin (scheme, host and port) only: the
// credential headers are added by the client's transport to a request for
// that origin and removed from any other, and a redirect off the origin
// (another host, or the same host over another scheme or port, as an https
// endpoint redirected to plain http) is refused, not followed. A redirect
// within the origin keeps net/http's rules: 307 and 308 resend the POST with
// its body; 301, 302 and 303 become a GET, which the API refuses.
type apiClient struct {
	base   *url.URL
	header http.Header // sent with every request (content type, API version)
	http   *http.Client
}

// errOffOrigin is a redirect away from the configured origin: refused, and
// not retried (the next attempt would be redirected the same way).
var errOffOrigin = errors.New("redirect refused")

// errTooLarge is an answer over maxResponseBytes: not retried, since every
// attempt is billed again and the endpoint would answer the same.
var errTooLarge = errors.New("answer too large")

// newAPIClient returns a client for base (def when the configuration has
// none). The base URL is parsed first, then a request's path is joined to
// its path, so a query on the base URL (Azure's ?api-version=...) stays a
// query: ".../deployments/d?api-version=v" + "chat/completions" is
// ".../deployments/d/chat/completions?api-version=v". auth holds the
// credential headers, sent to the base URL's origin only.
func newAPIClient(cfg ProviderConfig, def string, header, auth http.Header) *apiClient {
	u, err := url.Parse(strings.TrimSpace(cfg.baseURL(def)))
	if err != nil || u.Host == "" {
		// Options checks the URL; a bad one here fails every request.
		u = &url.URL{Scheme: "invalid", Opaque: "base-url"}
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	u.Fragment, u.RawFragment = "", ""
	var hc http.Client
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	home := origin.Of(u)
	hc.Transport = &keyTransport{base: base, origin: home, auth: auth}
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if o := origin.Of(req.URL); o != home {
			return fmt.Errorf("%w: the API at %s redirected to %s; the key is sent to %s only (set --base-url to the address the API answers at)", errOffOrigin, home, o, home)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	h := http.Header{
		"Accept":       {"application/json"},
		"Content-Type": {"application/json"},
		"User-Agent":   {"rubricgate/" + version.Version},
	}
	for k, v := range header {
		h[k] = v
	}
	return &apiClient{base: u, header: h, http: &hc}
}

// keyTransport adds the credential headers to requests for the API's
// origin and removes them from requests anywhere else (net/http copies
// headers such as x-api-key and api-key to every redirect).
type keyTransport struct {
	base   http.RoundTripper
	origin string
	auth   http.Header
}

// RoundTrip sends req, with the key only when it goes to the API's origin.
func (t *keyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	same := origin.Of(req.URL) == t.origin
	for k, v := range t.auth {
		if same {
			r.Header[k] = v
		} else {
			r.Header.Del(k)
		}
	}
	if !same {
		r.Header.Del("Authorization")
	}
	return t.base.RoundTrip(r)
}

// url is the address of path under the base URL, with the base's query.
func (c *apiClient) url(path string) string {
	u := *c.base
	u.Path += path
	if u.RawPath != "" {
		u.RawPath += path
	}
	return u.String()
}

// post sends body as JSON to path (relative to the base URL) and decodes a
// 2xx answer into out. A non-2xx answer is an *APIError with the API's
// message and the answer's header; an answer that is not JSON or a network
// failure is a transport error (see callFailed), retried; a body over
// maxResponseBytes or a redirect off the origin is an error not retried.
// The answer's header is returned either way.
func (c *apiClient) post(ctx context.Context, path string, body, out any) (http.Header, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("judge: encoding the request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url(path), bytes.NewReader(b))
	if err != nil {
		return nil, callFailed(ctx, err)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, callFailed(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return resp.Header, callFailed(ctx, err)
	}
	if len(data) > maxResponseBytes {
		return resp.Header, fmt.Errorf("%w: the answer is over %d MiB (HTTP %d%s), not retried: each attempt is billed", errTooLarge, maxResponseBytes>>20, resp.StatusCode, requestIDNote(resp.Header, ""))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.Header, apiError(resp.StatusCode, data, resp)
	}
	if err := json.Unmarshal(data, out); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return resp.Header, fmt.Errorf("%w: error parsing response json: %s", errTransport, se.Error())
		}
		return resp.Header, fmt.Errorf("%w: error parsing response json: %s", errTransport, err.Error())
	}
	return resp.Header, nil
}
