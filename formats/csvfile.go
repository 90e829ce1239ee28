package formats

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"

	"github.com/rubricgate/rubricgate/internal/crlf"
	"github.com/rubricgate/rubricgate/record"
)

// csvFile is a tool's CSV export opened for reading: its header row read,
// bad input an *record.InputError naming the file and line.
type csvFile struct {
	name string
	r    *csv.Reader
	head []string
}

// openCSV opens r (named name) as CSV under the size limit: a bare CR
// (old Mac line ends) is refused before parsing, and an empty file is an
// error that says what header was expected (want).
func openCSV(name string, r io.Reader, want string) (*csvFile, error) {
	br := bufio.NewReaderSize(limitedReader(r, maxFile), 64<<10)
	// Peek returns (and clears) a read error, so it is checked here.
	peek, perr := br.Peek(br.Size())
	if crlf.BareCR(peek) {
		return nil, &record.InputError{File: name, Line: 1, Msg: crlf.Message}
	}
	f := &csvFile{name: name, r: csv.NewReader(br)}
	if perr != nil && perr != io.EOF && perr != bufio.ErrBufferFull {
		return nil, f.err(perr)
	}
	head, err := f.r.Read()
	if err == io.EOF {
		return nil, &record.InputError{File: name, Line: 1, Msg: "empty; expected " + want}
	}
	if err != nil {
		return nil, f.err(err)
	}
	f.head = head
	return f, nil
}

// err words a read error: a CSV syntax error at its line, else the cause.
func (f *csvFile) err(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &record.InputError{File: f.name, Line: pe.Line, Msg: fmt.Sprintf("not valid CSV: %v", pe.Err)}
	}
	return &record.InputError{File: f.name, Msg: fmt.Sprintf("read: %v", err), Err: err}
}
