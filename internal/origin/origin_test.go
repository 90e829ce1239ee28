package origin

import (
	"net/url"
	"testing"
)

// Equal origins compare equal whatever the case and default port; another
// scheme, port or host is another origin.
func TestOf(t *testing.T) {
	for _, tt := range []struct{ a, b string }{
		{"https://api.github.com/", "HTTPS://API.GITHUB.COM:443/x"},
		{"http://127.0.0.1:80/", "http://127.0.0.1/"},
	} {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if Of(a) != Of(b) {
			t.Errorf("%s and %s: %s != %s", tt.a, tt.b, Of(a), Of(b))
		}
	}
	for _, tt := range []struct{ a, b string }{
		{"https://api.github.com/", "http://api.github.com/"},
		{"https://api.github.com/", "https://api.github.com:8443/"},
		{"https://api.github.com/", "https://api.github.com.evil.example/"},
	} {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if Of(a) == Of(b) {
			t.Errorf("%s and %s share an origin", tt.a, tt.b)
		}
	}
}
