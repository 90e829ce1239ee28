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

	"github.com/rubricgate/rubricgate/internal/version"
)

// maxResponseBytes caps the body of one API answer: a judge answer is a few
// kilobytes; anything past this is not an answer the judge can use.
const maxResponseBytes = 8 << 20

// apiClient sends JSON requests to one API over net/http: the small typed
// client the providers share. It never retries (the runner does) and keeps
// net/http's redirect policy (307 and 308 resend the POST with its body;
// 301, 302 and 303 become a GET, which the API refuses).
type apiClient struct {
	base   *url.URL
	header http.Header // sent with every request (auth, API version)
	http   *http.Client
}

// newAPIClient returns a client for base (def when the configuration has
// none); a base URL without a trailing slash gets one, so that a path
// resolves under it (".../v1" + "chat/completions" is ".../v1/chat/completions").
func newAPIClient(cfg ProviderConfig, def string, header http.Header) *apiClient {
	raw := cfg.baseURL(def)
	if !strings.HasSuffix(raw, "/") {
		raw += "/"
	}
	u, err := url.Parse(raw)
	if err != nil {
		// Options checks the URL; a bad one here fails every request.
		u = &url.URL{Scheme: "invalid", Opaque: "base-url"}
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	h := http.Header{
		"Accept":       {"application/json"},
		"Content-Type": {"application/json"},
		"User-Agent":   {"rubricgate/" + version.Version},
	}
	for k, v := range header {
		h[k] = v
	}
	return &apiClient{base: u, header: h, http: hc}
}

// post sends body as JSON to path (relative to the base URL) and decodes a
// 2xx answer into out. A non-2xx answer is an *APIError with the API's
// message and the answer's header; an answer that is not JSON, a network
// failure or a body over maxResponseBytes is a transport error (see
// callFailed). The answer's header is returned either way.
func (c *apiClient) post(ctx context.Context, path string, body, out any) (http.Header, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("judge: encoding the request: %w", err)
	}
	u := c.base.ResolveReference(&url.URL{Path: path})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(b))
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
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.Header, apiError(resp.StatusCode, string(data), resp)
	}
	if len(data) > maxResponseBytes {
		return resp.Header, fmt.Errorf("%w: the answer is over %d MiB", errTransport, maxResponseBytes>>20)
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
