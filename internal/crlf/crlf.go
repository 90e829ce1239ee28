// Package crlf spots text files saved with bare carriage returns as line
// ends (classic Mac OS, some spreadsheet exports), which encoding/csv and a
// JSON lines reader would otherwise read as one long line, giving an error
// about something else entirely.
package crlf

// Message is the error text for a file whose first line ends in a bare CR.
const Message = "the first line ends in a bare carriage return (CR line ends): expected lines ending in LF or CRLF"

// BareCR reports whether the first line of b (up to its first LF, or all
// of b) has a carriage return outside double quotes that no LF follows. A CR
// that is the last byte of b is undecided (an LF may follow beyond what was
// read) and does not count.
func BareCR(b []byte) bool {
	quoted := false
	for i, c := range b {
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\n' && !quoted:
			return false
		case c == '\r' && !quoted && (i+1 >= len(b) || b[i+1] != '\n'):
			return i+1 < len(b)
		}
	}
	return false
}
