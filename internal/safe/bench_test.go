package safe

import (
	"strings"
	"testing"
)

var benchText = strings.Repeat("The answer cites [doc 3] | see <b>@octocat</b> for `details`.\n", 40)

func BenchmarkCell(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	for i := 0; i < b.N; i++ {
		_ = Cell(benchText, 200)
	}
}

func BenchmarkBlock(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	for i := 0; i < b.N; i++ {
		_ = Block(benchText, 0)
	}
}

func BenchmarkLogLine(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	for i := 0; i < b.N; i++ {
		_ = LogLine(benchText)
	}
}
