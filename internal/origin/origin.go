// Package origin says where a request goes, for the clients that keep a
// credential on one origin (the GitHub token, an LLM provider's key): the
// scheme, host and port, compared so that a redirect elsewhere is seen.
package origin

import (
	"net"
	"net/url"
	"strings"
)

// Of is "scheme://host:port" with the scheme and host lower-cased and the
// default port made explicit.
func Of(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
