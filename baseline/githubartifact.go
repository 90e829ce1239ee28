package baseline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/google/go-github/v60/github"
)

// fetch downloads and checks one candidate. Failures of the candidate itself
// are *candidateErr; others are store errors.
func (s *search) fetch(ctx context.Context, a *github.Artifact, q Query) (*File, error) {
	id := a.GetID()
	if sz := a.GetSizeInBytes(); sz > s.g.MaxArchive {
		return nil, &candidateErr{fmt.Errorf("archive of %d bytes exceeds the %d-byte limit", sz, s.g.MaxArchive)}
	}
	var data []byte
	err := s.retry(ctx, func() error {
		// A fresh archive URL on every attempt: the signed URL is short-lived.
		loc, err := s.archiveURL(ctx, id)
		if err != nil {
			return err
		}
		data, err = s.download(ctx, loc)
		return err
	})
	var re *RequestError
	if err != nil && errors.As(err, &re) && re.Op == "download archive" && re.StatusCode == http.StatusForbidden {
		// Storage kept refusing fresh URLs: this candidate, not the store.
		err = &candidateErr{err}
	}
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("artifact #%d baseline.json", id)
	raw, err := extractBaseline(data, s.g.MaxArchive)
	if err != nil {
		return nil, &candidateErr{err}
	}
	f, err := Read(bytes.NewReader(raw), name, s.g.MaxArchive)
	if err != nil {
		return nil, &candidateErr{err}
	}
	// A baseline for another rubric name is returned, not skipped: the name
	// comes from the rubric file a pull request edits, so a renamed rubric
	// must meet the old baseline (a rubric change, for the gate to judge),
	// never an empty store.
	return f, nil
}

// archiveURL asks the API for the archive's signed storage URL (a 302).
func (s *search) archiveURL(ctx context.Context, id int64) (*url.URL, error) {
	const op = "artifact archive URL"
	path := fmt.Sprintf("repos/%s/%s/actions/artifacts/%d/zip", url.PathEscape(s.g.Owner), url.PathEscape(s.g.Repo), id)
	rctx, cancel := context.WithTimeout(ctx, s.g.RequestTimeout)
	defer cancel()
	req, err := s.g.API.NewRequest("GET", path, nil)
	if err != nil {
		return nil, &RequestError{Op: op, Request: "GET " + path, Err: err}
	}
	resp, err := s.api.Do(req.WithContext(rctx))
	if err != nil {
		return nil, netError(op, "GET "+path, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect:
		loc, err := resp.Location()
		// Storage is https; plain http only when the API itself is (a test
		// server, or an Enterprise host on http).
		if err != nil || (loc.Scheme != "https" && (loc.Scheme != "http" || s.g.API.BaseURL.Scheme != "http")) || loc.Host == "" {
			return nil, &RequestError{Op: op, Request: "GET " + path, StatusCode: resp.StatusCode, Err: fmt.Errorf("redirect without a usable Location (%q)", resp.Header.Get("Location"))}
		}
		return loc, nil
	case http.StatusGone:
		return nil, &candidateErr{&RequestError{Op: op, Request: "GET " + path, StatusCode: resp.StatusCode, Err: errors.New("410 Gone: the artifact has expired or was deleted")}}
	}
	return nil, s.apiError(op, "GET "+path, resp)
}

// download fetches the archive from storage with the plain client, capped.
func (s *search) download(ctx context.Context, loc *url.URL) ([]byte, error) {
	const op = "download archive"
	shown := *loc
	shown.RawQuery, shown.Fragment, shown.User = "", "", nil
	desc := "GET " + shown.String() + " (signed URL)"
	rctx, cancel := context.WithTimeout(ctx, s.g.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, "GET", loc.String(), nil)
	if err != nil {
		return nil, &RequestError{Op: op, Request: desc, Err: err}
	}
	req.Header.Del("Authorization")
	resp, err := s.dl.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = shown.String() // keep the signature out of errors and logs
		}
		return nil, netError(op, desc, err)
	}
	defer resp.Body.Close()
	rerr := func(err error) *RequestError {
		return &RequestError{Op: op, Request: desc, StatusCode: resp.StatusCode, Err: err}
	}
	switch c := resp.StatusCode; {
	case c == http.StatusOK:
	case c == http.StatusNotFound || c == http.StatusGone:
		return nil, &candidateErr{rerr(fmt.Errorf("%s: the archive has expired or vanished", resp.Status))}
	case c == http.StatusTooManyRequests:
		return nil, &rateWait{d: s.retryAfter(resp), err: rerr(errors.New(resp.Status))}
	case c == http.StatusForbidden:
		// Usually the signed URL expired during a backoff: retried with a
		// fresh URL, and a candidate failure if it persists.
		return nil, &transient{rerr(fmt.Errorf("storage answered %s (signed URL expired?)", resp.Status))}
	case c >= 500:
		return nil, &transient{rerr(errors.New(resp.Status))}
	default:
		return nil, &candidateErr{rerr(fmt.Errorf("storage answered %s", resp.Status))}
	}
	if resp.ContentLength > s.g.MaxArchive {
		return nil, &candidateErr{rerr(fmt.Errorf("archive of %d bytes exceeds the %d-byte limit", resp.ContentLength, s.g.MaxArchive))}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, s.g.MaxArchive+1))
	if err != nil {
		return nil, &transient{rerr(fmt.Errorf("reading the archive: %w", err))}
	}
	if int64(len(data)) > s.g.MaxArchive {
		return nil, &candidateErr{rerr(fmt.Errorf("archive exceeds the %d-byte limit", s.g.MaxArchive))}
	}
	return data, nil
}
