package ghclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// authLog records the Authorization header of every request a server saw.
type authLog struct {
	mu   sync.Mutex
	seen map[string]string
}

func (l *authLog) record(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]string{}
	}
	l.seen[r.URL.Path] = r.Header.Get("Authorization")
}

func (l *authLog) get(path string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.seen[path]
	return v, ok
}

// A redirect that leaves the API origin is followed without the token; one
// that stays on it keeps the token.
func TestTokenStaysOnAPIOrigin(t *testing.T) {
	var other, api authLog
	otherSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.record(r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"number": 1}`))
	}))
	defer otherSrv.Close()
	var apiSrv *httptest.Server
	apiSrv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.record(r)
		switch r.URL.Path {
		case "/api/away":
			http.Redirect(w, r, otherSrv.URL+"/stolen", http.StatusFound)
		case "/api/moved":
			http.Redirect(w, r, apiSrv.URL+"/api/here", http.StatusMovedPermanently)
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"number": 2}`))
		}
	}))
	defer apiSrv.Close()

	c, err := New(apiSrv.URL+"/api", "ghs_secret", apiSrv.Client())
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"away", "moved"} {
		req, err := c.NewRequest("GET", path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Do(context.Background(), req, nil); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	if auth, ok := other.get("/stolen"); !ok || auth != "" {
		t.Errorf("the other host: reached %v, Authorization %q (want reached, none)", ok, auth)
	}
	for _, p := range []string{"/api/away", "/api/moved", "/api/here"} {
		if auth, _ := api.get(p); auth != "Bearer ghs_secret" {
			t.Errorf("API %s: Authorization %q, want the token", p, auth)
		}
	}
}

func TestNewRefusesBadInput(t *testing.T) {
	if _, err := New("", "", nil); err == nil {
		t.Error("no token: no error")
	}
	if _, err := New("ftp://x", "t", nil); err == nil {
		t.Error("ftp URL: no error")
	}
	c, err := New("https://ghe.example/api/v3", "t", nil)
	if err != nil || c.BaseURL.String() != "https://ghe.example/api/v3/" || c.UploadURL.String() != "https://ghe.example/api/uploads/" {
		t.Errorf("Enterprise URLs: %v %v %v", c.BaseURL, c.UploadURL, err)
	}
}
