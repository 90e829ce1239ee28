package crlf

import "testing"

func TestBareCR(t *testing.T) {
	for in, want := range map[string]bool{
		"id,a\rq1,2\r":        true,
		"id,a\r\nq1,2\r\n":    false,
		"id,a\nq1,2\rx\n":     false, // only the first line is looked at
		"id,\"a\rb\"\nq1,2\n": false, // a CR inside quotes is data
		"id,a\r":              false, // an LF may follow beyond what was read
		"":                    false,
	} {
		if got := BareCR([]byte(in)); got != want {
			t.Errorf("BareCR(%q) = %v, want %v", in, got, want)
		}
	}
}
