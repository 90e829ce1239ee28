package judge

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// cacheVersion changes when the address or the entry format does. Version
// 2 put the endpoint into the address and authenticated every entry;
// version 1 entries are never read.
const cacheVersion = 2

// CacheKeyEnv is the environment variable whose value, when set, keys the
// cache's entry authentication instead of the API key.
const CacheKeyEnv = "RUBRICGATE_CACHE_KEY"

// MinCacheSecret is the shortest secret (in bytes) that keys the cache: an
// API key under it (a keyless local endpoint's placeholder) leaves the
// cache off unless [CacheKeyEnv] is set, and a shorter [CacheKeyEnv] is
// refused.
const MinCacheSecret = 16

// ErrCacheSecret is returned by [NewCache] for a secret under
// [MinCacheSecret] bytes.
var ErrCacheSecret = fmt.Errorf("cache: the secret that authenticates entries must be at least %d bytes", MinCacheSecret)

// Cache is a content-addressed directory of judge answers: one small file
// per (endpoint, rubric hash, provider, model, prompt, sampling parameters,
// sample index). Every entry carries an HMAC-SHA256 over its address and
// content, keyed from a secret the run holds (the API key, or
// [CacheKeyEnv]): whoever can write the directory but does not hold the
// secret (a pull request committing one) cannot make an entry that is
// read. An entry that is unreadable or fails verification is a miss,
// re-judged and overwritten, and counted (Summary.CacheFailed). No secret
// of the run is ever stored: answers are redacted before they are written.
//
// Files are written to a temporary name and renamed into place, so
// concurrent writers (and shards sharing a directory) never see a partial
// entry.
type Cache struct {
	dir      string
	mac      []byte // the entry key, derived from the secret
	endpoint string // the normalised base URL, part of every address
	// dirs holds the subdirectories made and found to be directories (not
	// symbolic links) by a put, checked once per cache, not on every write.
	dirs sync.Map
}

// NewCache returns a cache in dir, creating it, whose entries are
// authenticated with a key derived from secret (at least [MinCacheSecret]
// bytes, else [ErrCacheSecret]) and addressed under endpoint, the API's
// base URL (normalised: see [NormalizeEndpoint]).
func NewCache(dir, secret, endpoint string) (*Cache, error) {
	if len(secret) < MinCacheSecret {
		return nil, ErrCacheSecret
	}
	// HKDF-SHA256 with a fixed label: the entry key is never the API key
	// itself, and says what it is for.
	mk, err := hkdf.Key(sha256.New, []byte(secret), nil, "rubricgate judge cache entry MAC v2", sha256.Size)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &Cache{dir: dir, mac: mk, endpoint: NormalizeEndpoint(endpoint)}, nil
}

// Default base URLs of the providers, as the cache addresses them when no
// base URL is given.
const (
	openAIEndpoint    = "https://api.openai.com/v1"
	anthropicEndpoint = "https://api.anthropic.com"
)

// Endpoint is the base URL a provider's requests go to: baseURL, or the
// provider's default ("openai" or "anthropic"), normalised.
func Endpoint(provider, baseURL string) string {
	if strings.TrimSpace(baseURL) != "" {
		return NormalizeEndpoint(baseURL)
	}
	if provider == "anthropic" {
		return anthropicEndpoint
	}
	return openAIEndpoint
}

// NormalizeEndpoint returns the base URL as the cache addresses it: scheme
// and host lower-case, the scheme's default port, the user's credentials,
// the fragment and trailing slashes dropped, the query's parameters sorted.
// Text that is not a URL is kept as given (trimmed).
func NormalizeEndpoint(raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if p := u.Port(); p != "" && !(u.Scheme == "https" && p == "443") && !(u.Scheme == "http" && p == "80") {
		host = net.JoinHostPort(host, p)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 literal
	}
	u.Host = host
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	if u.RawQuery != "" {
		u.RawQuery = u.Query().Encode()
	}
	return u.String()
}

// cacheKey is what an entry's address is the hash of.
type cacheKey struct {
	V           int     `json:"v"`
	Endpoint    string  `json:"endpoint"`
	Rubric      string  `json:"rubric"`
	Provider    string  `json:"provider"`
	Model       string  `json:"model"`
	System      string  `json:"system"`
	User        string  `json:"user"`
	Temperature float64 `json:"temperature"`
	// Sampling is "" for temperature 0, "default" when the request carries
	// no temperature (see [Sampler]): the judgings differ in kind.
	Sampling string `json:"sampling,omitempty"`
	Seed     int64  `json:"seed"`
	Sample   int    `json:"sample"`
}

func (k *cacheKey) hash() string {
	b, _ := json.Marshal(k)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// cacheEntry is a validated judge answer as stored (its secrets redacted).
type cacheEntry struct {
	V            int    `json:"v"`
	Text         string `json:"text"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
}

// storedEntry is an entry's file: the entry and its MAC.
type storedEntry struct {
	cacheEntry
	MAC string `json:"mac"`
}

// sum is the entry's MAC: HMAC-SHA256 over the address and the entry's
// encoding, so an entry can be neither changed nor moved to another
// address.
func (c *Cache) sum(key string, e *cacheEntry) []byte {
	b, _ := json.Marshal(e)
	m := hmac.New(sha256.New, c.mac)
	m.Write([]byte(key))
	m.Write([]byte{0})
	m.Write(b)
	return m.Sum(nil)
}

func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// cacheLookup is the outcome of a lookup.
type cacheLookup int

const (
	cacheMiss   cacheLookup = iota // no entry
	cacheHit                       // a verified entry
	cacheFailed                    // an entry that is unreadable or fails verification
)

// get reads and verifies the entry at key.
func (c *Cache) get(key string) (*cacheEntry, cacheLookup) {
	b, err := os.ReadFile(c.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, cacheMiss
	}
	if err != nil {
		return nil, cacheFailed
	}
	var s storedEntry
	if json.Unmarshal(b, &s) != nil || s.V != cacheVersion {
		return nil, cacheFailed
	}
	mac, err := hex.DecodeString(s.MAC)
	if err != nil || !hmac.Equal(mac, c.sum(key, &s.cacheEntry)) {
		return nil, cacheFailed
	}
	return &s.cacheEntry, cacheHit
}

func (c *Cache) put(key string, e *cacheEntry) error {
	p := c.path(key)
	if err := c.subdir(filepath.Dir(p)); err != nil {
		return err
	}
	e.V = cacheVersion
	b, err := json.Marshal(storedEntry{cacheEntry: *e, MAC: hex.EncodeToString(c.sum(key, e))})
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

// subdir makes the entry subdirectory dir and checks it, the first time
// only. The cache makes its subdirectories: one that is a symbolic link
// was planted, and would send the entry elsewhere.
func (c *Cache) subdir(dir string) error {
	if _, ok := c.dirs.Load(dir); ok {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("cache: %s is not a directory (a symbolic link?): remove it, the cache makes its own subdirectories", dir)
	}
	c.dirs.Store(dir, struct{}{})
	return nil
}

// cached looks up sample s (seed) of prompt p. On a verified hit it
// returns the judgment and the usage it cost. An entry that fails verification, or whose answer no longer
// parses, is counted in Summary.CacheFailed and judged again.
func (r *runner) cached(p Prompt, seed int64, s int) (j *Judgment, e *cacheEntry) {
	c := r.cfg.Cache
	key := r.cacheKey(p, seed, s)
	e, st := c.get(key)
	if st == cacheHit {
		var err error
		if j, err = Parse(r.cfg.Rubric, e.Text); err == nil {
			return j, e
		}
		st = cacheFailed
	}
	if st == cacheFailed {
		r.count(func(sm *Summary) { sm.CacheFailed++ })
	}
	return nil, nil
}

// Sampler is a provider whose requests may carry no temperature: Sampling
// is "" while they carry temperature 0 and "default" when they carry none
// (the model's default, as under Anthropic's current API version or for a
// reasoning model). It may change during a run (a 400 that refuses
// temperature), so the cache key is taken when an entry is looked up and
// again when one is stored.
type Sampler interface {
	Sampling() string
}

// cacheKey is the address of the judging of prompt p with seed as sample
// s, under the provider's sampling now.
func (r *runner) cacheKey(p Prompt, seed int64, s int) string {
	k := cacheKey{V: cacheVersion, Endpoint: r.cfg.Cache.endpoint, Rubric: r.rhash, Provider: r.cfg.ProviderName, Model: r.cfg.Model,
		System: p.System, User: p.User, Seed: seed, Sample: s}
	if sp, ok := r.cfg.Provider.(Sampler); ok {
		k.Sampling = sp.Sampling()
	}
	return k.hash()
}

// store keeps a validated judgment at key, its reasoning redacted: the
// cache never holds a secret, so a later run (with another key) cannot
// write an old one into its results.
func (r *runner) store(key string, j *Judgment, inTokens, outTokens int64) error {
	red := *j
	red.Reasoning = r.redact(j.Reasoning)
	return r.cfg.Cache.put(key, &cacheEntry{Text: canonicalText(r.cfg.Rubric, &red), InputTokens: inTokens, OutputTokens: outTokens})
}

// CacheNote is the log line for entries that failed verification ("" when
// none did).
func (s *Summary) CacheNote() string {
	if s.CacheFailed == 0 {
		return ""
	}
	return fmt.Sprintf("%d cache entries failed verification, re-judged", s.CacheFailed)
}
