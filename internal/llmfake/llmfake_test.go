package llmfake

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func ok(*Received) Reply { return Reply{Text: `{"a":1}`} }

// send posts body to path with headers and returns the status and body.
func send(t *testing.T, s *Server, path, body string, h map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The fakes refuse what the APIs document they refuse, with the APIs'
// status codes and error bodies, and take what they take.
func TestFakesRefuseWhatTheAPIsRefuse(t *testing.T) {
	an := New(Anthropic, "k", ok)
	defer an.Close()
	oa := New(OpenAI, "k", ok)
	defer oa.Close()
	az := NewAzure("k", map[string]string{"dep": "o3-mini", "chat": "gpt-4o"}, ok)
	defer az.Close()
	msg := `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]%s}`
	bearer := map[string]string{"Authorization": "Bearer k"}
	v := func(version string, h map[string]string) map[string]string {
		out := map[string]string{"Anthropic-Version": version}
		for k, x := range h {
			out[k] = x
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		s          *Server
		path, body string
		h          map[string]string
		status     int
		want       string
	}{
		{"2026-10-21 takes no temperature", an, "/v1/messages", strings.Replace(msg, "%s", `,"temperature":0`, 1), v("2026-10-21", bearer), 400, "temperature: Extra inputs are not permitted"},
		{"2026-10-21 takes no top_k", an, "/v1/messages", strings.Replace(msg, "%s", `,"top_k":5`, 1), v("2026-10-21", bearer), 400, "top_k: Extra inputs are not permitted"},
		{"2026-10-21 without sampling", an, "/v1/messages", strings.Replace(msg, "%s", "", 1), v("2026-10-21", bearer), 200, ""},
		{"2023-06-01 takes temperature 0", an, "/v1/messages", strings.Replace(msg, "%s", `,"temperature":0`, 1), v("2023-06-01", bearer), 200, ""},
		{"x-api-key wins over bearer", an, "/v1/messages", strings.Replace(msg, "%s", "", 1), v("2026-10-21", map[string]string{"Authorization": "Bearer k", "X-Api-Key": "bad"}), 401, "authentication_error"},
		{"no version", an, "/v1/messages", strings.Replace(msg, "%s", "", 1), bearer, 400, "anthropic-version: header is required"},
		{"no max_tokens", an, "/v1/messages", `{"model":"m","messages":[]}`, v("2023-06-01", bearer), 400, "max_tokens: Field required"},
		{"reasoning model, max_tokens", oa, "/v1/chat/completions", `{"model":"o3","messages":[],"max_tokens":5}`, bearer, 400, `"param":"max_tokens"`},
		{"reasoning model, temperature 0", oa, "/v1/chat/completions", `{"model":"gpt-5","messages":[],"temperature":0}`, bearer, 400, "Only the default (1) value is supported"},
		{"chat model, temperature 0", oa, "/v1/chat/completions", `{"model":"gpt-4o","messages":[],"temperature":0,"max_tokens":5}`, bearer, 200, ""},
		{"unknown field", oa, "/v1/chat/completions", `{"model":"gpt-4o","messages":[],"temprature":0}`, bearer, 400, "Unrecognized request argument supplied: temprature"},
		{"azure without api-version", az, "/openai/deployments/chat/chat/completions", `{"messages":[]}`, map[string]string{"Api-Key": "k"}, 404, "Resource not found"},
		{"azure key as bearer", az, "/openai/deployments/chat/chat/completions?api-version=2024-10-21", `{"messages":[]}`, bearer, 401, "Access denied"},
		{"azure unknown deployment", az, "/openai/deployments/nope/chat/completions?api-version=2024-10-21", `{"messages":[]}`, map[string]string{"Api-Key": "k"}, 404, "DeploymentNotFound"},
		{"azure old version, max_completion_tokens", az, "/openai/deployments/dep/chat/completions?api-version=2024-06-01", `{"messages":[],"max_completion_tokens":5}`, map[string]string{"Api-Key": "k"}, 400, "max_completion_tokens"},
		{"azure v1, reasoning deployment, temperature", az, "/openai/v1/chat/completions", `{"model":"dep","messages":[],"temperature":0}`, map[string]string{"Api-Key": "k"}, 400, `"param":"temperature"`},
		{"azure classic ok", az, "/openai/deployments/chat/chat/completions?api-version=2024-10-21", `{"messages":[],"temperature":0,"max_tokens":5}`, map[string]string{"Api-Key": "k"}, 200, ""},
	} {
		status, body := send(t, tc.s, tc.path, tc.body, tc.h)
		if status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s: HTTP %d %s, want %d with %q", tc.name, status, body, tc.status, tc.want)
		}
		if status != 200 && !json.Valid([]byte(body)) {
			t.Errorf("%s: error body not JSON: %s", tc.name, body)
		}
	}
}
