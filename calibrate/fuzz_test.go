package calibrate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadReport checks that ReadReport never panics and that whatever it
// accepts encodes back to JSON without NaN and is accepted again.
func FuzzReadReport(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "golden", "calibrate.json")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"rubric":{"name":"r","hash":"h"},"metric":"exact","min_agreement":0.75,"criteria":[{"id":"a","confusion":{"levels":[1,2],"counts":[[0,0],[0,0]]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := ReadReport(bytes.NewReader(data), 1<<20)
		if err != nil {
			return
		}
		out, err := json.Marshal(rep)
		if err != nil {
			t.Fatalf("accepted report does not encode: %v", err)
		}
		if _, err := ReadReport(bytes.NewReader(out), 1<<20); err != nil {
			t.Fatalf("re-encoded report rejected: %v\n%s", err, out)
		}
		_ = DecideTier(DefaultTiers, 10, true, rep, testRubric(), 0)
		var b bytes.Buffer
		if err := WriteMarkdown(&b, rep); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzAgreement checks that no pairing of scores yields NaN or a panic.
func FuzzAgreement(f *testing.F) {
	f.Add([]byte{1, 2, 3, 3, 5, 5}, uint8(5))
	f.Add([]byte{0, 0}, uint8(2))
	f.Fuzz(func(t *testing.T, scores []byte, k uint8) {
		levels := int(k%9) + 2
		c := newConfusion(scaleOf(levels))
		for i := 0; i+1 < len(scores); i += 2 {
			c.add(int(scores[i])%levels+1, int(scores[i+1])%levels+1)
		}
		for _, v := range []*float64{exactAgreement(&c), adjacentAgreement(&c), cohenKappa(&c, unweighted),
			cohenKappa(&c, quadratic), alphaPairs(&c, ordinal), alphaPairs(&c, interval)} {
			if v != nil {
				if _, err := json.Marshal(*v); err != nil {
					t.Fatalf("metric %v does not encode: %v", *v, err)
				}
				if *v > 1+1e-9 {
					t.Fatalf("agreement %v above 1", *v)
				}
			}
		}
	})
}
