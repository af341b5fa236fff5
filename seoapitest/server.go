package seoapitest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mathrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
)

// Plan is the plan of an account. Only PlanEnterprise has API access.
type Plan string

// The plans the fake knows. Any other Plan value is a plan without API
// access, like PlanAgency.
const (
	PlanEnterprise Plan = "enterprise"
	PlanAgency     Plan = "agency"
)

// Limits are the rate limits the fake enforces per key, each over a strict
// rolling window. Zero turns a level off.
type Limits struct {
	PerSecond int
	PerHour   int
}

// PublishedLimits returns the limits the API publishes: 10 000 requests an
// hour and 50 a second per key. A new Server enforces them.
func PublishedLimits() Limits {
	return Limits{PerSecond: 50, PerHour: 10000}
}

// Request is what the fake recorded of one request it received.
type Request struct {
	Method string
	// Path is the escaped path, as sent.
	Path  string
	Query url.Values
	// Header is the request's header with the credential of Authorization
	// replaced by [REDACTED].
	Header http.Header
	// Body is the request body as received (at most 1 MiB of it).
	Body []byte
	// Status is the status the fake answered, or 0 when it answered
	// nothing (DropNext, a client that left during SetDelay) or has not
	// answered yet.
	Status int
	// At is when the request arrived.
	At time.Time
}

// Server is the fake API: an http.Handler holding accounts, keys and
// records in memory. Create it with NewServer or New. It is safe for
// concurrent use.
type Server struct {
	mu         sync.Mutex
	now        func() time.Time
	tb         testing.TB
	url        string
	seq        int
	main       *keyRec            // the key Key returns
	keys       map[string]*keyRec // by secret
	workspaces []*workspace       // in creation order
	limits     Limits
	windows    map[string]*window // by secret
	paging     Paging
	pageSize   int
	faults     []fault
	rates      FaultRates
	rng        *mathrand.Rand // the draws of rates
	delay      time.Duration
	listLag    time.Duration
	requests   []Request
	throttled  int
}

// NewServer starts a fake API on a loopback port and closes it when the
// test ends. It enforces PublishedLimits until SetLimits says otherwise.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	s := New()
	ts := httptest.NewServer(s)
	tb.Cleanup(ts.Close)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tb = tb
	s.url = ts.URL
	return s
}

// New returns a fake API that is not started: serve it, as an http.Handler,
// on a listener of your own. It enforces PublishedLimits and pages lists
// with Link headers, 50 items a page.
func New() *Server {
	s := &Server{
		now:      time.Now,
		keys:     map[string]*keyRec{},
		limits:   PublishedLimits(),
		windows:  map[string]*window{},
		paging:   PagingLink,
		pageSize: 50,
		rng:      newRand(mathrand.Uint64()),
	}
	acct := &account{plan: PlanEnterprise}
	s.main = s.addKey(acct, "", "default")
	return s
}

// URL returns the base URL of a Server from NewServer, such as
// http://127.0.0.1:41234, and "" for one from New, whose address only its
// listener knows.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Key returns an Enterprise key of a fresh account, the account that
// AddWorkspace adds to.
func (s *Server) Key() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.main.secret
}

// SetKey makes key the secret that Key returns, for programs that must
// know it in advance (the -key flag of cmd/seoapi-fake). It panics when key
// is blank or already a key of the fake.
func (s *Server) SetKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.TrimSpace(key) == "" {
		panic("seoapitest: SetKey: the key is blank")
	}
	if _, taken := s.keys[key]; taken {
		panic("seoapitest: SetKey: the key is already a key of the fake")
	}
	delete(s.keys, s.main.secret)
	delete(s.windows, s.main.secret)
	s.main.secret = key
	s.main.Prefix = prefixOf(key)
	s.keys[key] = s.main
}

// Client returns a Client for URL and Key with opts; it fails the test when
// the Client cannot be built. It panics on a Server from New, which has no
// URL and no test.
func (s *Server) Client(opts ...seoapi.Option) *seoapi.Client {
	s.mu.Lock()
	tb, base, key := s.tb, s.url, s.main.secret
	s.mu.Unlock()
	if tb == nil {
		panic("seoapitest: Client needs a Server from NewServer; serve one from New yourself and call seoapi.NewClient")
	}
	tb.Helper()
	c, err := seoapi.NewClient(base, key, opts...)
	if err != nil {
		tb.Fatalf("seoapitest: building a client for %s: %v", base, err)
	}
	return c
}

// IssueKey creates an account on plan with one workspace, "Default
// workspace", and returns a key of it (listed in that workspace) and the
// workspace's ID. Only a PlanEnterprise key may use the API; the others
// are answered 403.
func (s *Server) IssueKey(plan Plan) (key, workspaceID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	acct := &account{plan: plan}
	ws := s.addWorkspace(acct, "Default workspace")
	rec := s.addKey(acct, ws.ID, "bootstrap")
	return rec.secret, ws.ID
}

// SetLimits replaces the enforced limits and empties the windows; the zero
// Limits turns limiting off.
func (s *Server) SetLimits(l Limits) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits = l
	s.windows = map[string]*window{}
}

// Throttled returns how many requests the fake answered 429, whether its
// limits refused them or FailNext injected the 429.
func (s *Server) Throttled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.throttled
}

// Requests returns a copy of what the fake received, in order of arrival.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.requests)
	for i := range out {
		out[i].Query = cloneValues(out[i].Query)
		out[i].Header = out[i].Header.Clone()
		out[i].Body = slices.Clone(out[i].Body)
	}
	return out
}

func cloneValues(v url.Values) url.Values {
	return url.Values(http.Header(v).Clone())
}

// newID returns a fresh ID with prefix; callers hold s.mu.
func (s *Server) newID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s_%06d", prefix, s.seq)
}

// addKey creates a key of acct listed in workspaceID ("" for none);
// callers hold s.mu.
func (s *Server) addKey(acct *account, workspaceID, name string) *keyRec {
	secret := "sk_" + randomHex(24)
	rec := &keyRec{ID: s.newID("key"), Name: name, Prefix: prefixOf(secret), CreatedAt: s.now().UTC(), secret: secret, account: acct, workspace: workspaceID}
	s.keys[secret] = rec
	return rec
}

// prefixOf is the part of a secret that lists show.
func prefixOf(secret string) string {
	return secret[:min(len(secret), 7)]
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on supported platforms.
		panic("seoapitest: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}
