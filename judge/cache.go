package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// cacheVersion changes when the key or the entry format does.
const cacheVersion = 1

// Cache is a content-addressed directory of judge answers: one small file
// per (rubric hash, provider, model, prompt, sampling parameters, sample
// index). Files are written to a temporary name and renamed into place, so
// concurrent writers (and shards sharing a directory) never see a partial
// entry. An unreadable or invalid entry counts as a miss.
type Cache struct {
	dir string
}

// NewCache returns a cache in dir, creating it.
func NewCache(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &Cache{dir: dir}, nil
}

type cacheKey struct {
	V           int     `json:"v"`
	Rubric      string  `json:"rubric"`
	Provider    string  `json:"provider"`
	Model       string  `json:"model"`
	System      string  `json:"system"`
	User        string  `json:"user"`
	Temperature float64 `json:"temperature"`
	Seed        int64   `json:"seed"`
	Sample      int     `json:"sample"`
}

func (k *cacheKey) hash() string {
	b, _ := json.Marshal(k)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// cacheEntry is a validated judge answer as stored.
type cacheEntry struct {
	Text         string `json:"text"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
}

func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

func (c *Cache) get(key string) (*cacheEntry, bool) {
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil {
		return nil, false
	}
	return &e, true
}

func (c *Cache) put(key string, e *cacheEntry) error {
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), p)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
		if errors.Is(werr, fs.ErrExist) {
			return nil
		}
		return fmt.Errorf("cache: %w", werr)
	}
	return nil
}
