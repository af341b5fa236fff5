package seoapi

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Secret holds a secret such as a newly created API key. Printing it with
// fmt, logging it with slog or encoding it as JSON shows "[REDACTED]";
// string(s) gives the value.
type Secret string

const redacted = "[REDACTED]"

// String returns "[REDACTED]", or "" for an empty secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString keeps the value out of %#v.
func (s Secret) GoString() string { return fmt.Sprintf("seoapi.Secret(%q)", s.String()) }

// Format keeps the value out of every fmt verb, %x and %q included.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, s.GoString())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), s.String())
}

// LogValue keeps the value out of slog records.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON keeps the value out of JSON output, such as a struct logged
// as JSON. Use string(s) to store the secret deliberately.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// APIKey is an API key of a workspace. Key holds the secret, which the
// server is assumed to return only when the key is created.
//
// Printed with any fmt verb, logged with slog or encoded as JSON, an
// APIKey shows its typed fields with Key as "[REDACTED]" and never its raw
// JSON. string(k.Key) and k.Raw() give the secret deliberately: handle Raw
// as carefully as Key.
type APIKey struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Key        Secret     `json:"key,omitempty"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
	ExpiresAt  *time.Time `json:"expiresAt,omitempty"`

	rawJSON
}

// apiKeyView is what an APIKey shows of itself: its typed fields, whose
// Secret redacts itself, without the raw JSON.
type apiKeyView APIKey

func (k *APIKey) view() apiKeyView {
	v := apiKeyView(*k)
	v.rawJSON = rawJSON{}
	return v
}

// Format prints the key's typed fields, the secret redacted, for every
// verb; %#v prints Go syntax naming seoapi.APIKey.
func (k APIKey) Format(f fmt.State, verb rune) {
	s := fmt.Sprintf(fmt.FormatString(f, verb), k.view())
	if verb == 'v' && f.Flag('#') {
		s = strings.Replace(s, "seoapi.apiKeyView{", "seoapi.APIKey{", 1)
	}
	fmt.Fprint(f, s)
}

// LogValue logs the key as a group of its typed fields, the secret as
// "[REDACTED]" and only when there is one.
func (k APIKey) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("id", k.ID), slog.String("name", k.Name)}
	if k.Key != "" {
		attrs = append(attrs, slog.String("key", redacted))
	}
	attrs = append(attrs, slog.Time("createdAt", k.CreatedAt))
	if k.LastUsedAt != nil {
		attrs = append(attrs, slog.Time("lastUsedAt", *k.LastUsedAt))
	}
	if k.ExpiresAt != nil {
		attrs = append(attrs, slog.Time("expiresAt", *k.ExpiresAt))
	}
	return slog.GroupValue(attrs...)
}

// MarshalJSON encodes the key's typed fields, the secret redacted, so that
// decoding it back gives no usable secret.
func (k APIKey) MarshalJSON() ([]byte, error) { return json.Marshal(k.view()) }

// apiKeyJSON is an API key as a server may send it, its secret under any
// of secretMembers.
type apiKeyJSON struct {
	wireBase
	Name            string   `json:"name"`
	Key             string   `json:"key"`
	APIKey          string   `json:"apiKey"`
	APIKeySnake     string   `json:"api_key"`
	Token           string   `json:"token"`
	Secret          string   `json:"secret"`
	LastUsedAt      jsonTime `json:"lastUsedAt"`
	LastUsedAtSnake jsonTime `json:"last_used_at"`
	ExpiresAt       jsonTime `json:"expiresAt"`
	ExpiresAtSnake  jsonTime `json:"expires_at"`
}

func (w *apiKeyJSON) build() APIKey {
	secret := cmp.Or(w.Key, w.APIKey, w.APIKeySnake, w.Token, w.Secret)
	if secret == redacted {
		secret = "" // the placeholder a redacted copy carries
	}
	return APIKey{string(w.ID), w.Name, Secret(secret), w.created(),
		optionalTime(cmp.Or(w.LastUsedAt, w.LastUsedAtSnake)), optionalTime(cmp.Or(w.ExpiresAt, w.ExpiresAtSnake)), w.raw}
}

// optionalTime is nil for a time the JSON did not hold.
func optionalTime(t jsonTime) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t.Time
}

// UnmarshalJSON reads an API key tolerantly, as Workspace.UnmarshalJSON
// does. The secret is read from key, apiKey/api_key, token or secret.
func (k *APIKey) UnmarshalJSON(data []byte) error {
	return unmarshalResource[APIKey, apiKeyJSON](data, k)
}

func (k *APIKey) identity() string { return k.ID }

// secretMembers are the normalised names of the members an API key answer
// may carry its secret in: the redactor cleans an error body of their
// values.
var secretMembers = []string{"key", "apikey", "token", "secret"}

func isSecretMember(name string) bool { return slices.Contains(secretMembers, name) }

// APIKeyCreateRequest is the body of APIKeysService.Create.
type APIKeyCreateRequest struct {
	Name string `json:"name,omitempty"`
	// Extra holds more body fields (an expiry, scopes); a typed field that
	// is set wins.
	Extra map[string]any `json:"-"`
}

// MarshalJSON encodes the fields that are not empty, merged with Extra.
func (r APIKeyCreateRequest) MarshalJSON() ([]byte, error) {
	type fields APIKeyCreateRequest
	return marshalRequest(fields(r), r.Extra)
}

// APIKeysService handles the API keys of a workspace.
type APIKeysService struct{ service }

// List returns one page of the API keys of a workspace
// (GET /api/workspaces/:id/api-keys). Use All or Pages for every page.
func (s *APIKeysService) List(ctx context.Context, workspaceID string, opts *ListOptions) ([]*APIKey, *Response, error) {
	return listPage[APIKey](ctx, s.client, &listAPIKeys, opts, workspaceID)
}

var listAPIKeys = endpoint{operation: "APIKeys.List", method: http.MethodGet, route: "/api/workspaces/{id}/api-keys"}

// All iterates over every API key of a workspace, as WorkspacesService.All does.
func (s *APIKeysService) All(ctx context.Context, workspaceID string, opts *ListOptions) iter.Seq2[*APIKey, error] {
	return listAll[APIKey](ctx, s.client, &listAPIKeys, opts, workspaceID)
}

// Pages iterates over the pages of API keys, as WorkspacesService.Pages does.
func (s *APIKeysService) Pages(ctx context.Context, workspaceID string, opts *ListOptions) iter.Seq2[*Page[APIKey], error] {
	return listPages[APIKey](ctx, s.client, &listAPIKeys, opts, true, workspaceID)
}

// Create creates an API key (POST /api/workspaces/:id/api-keys). The
// returned Key holds the new secret. A nil req fails with
// ErrInvalidArgument before anything is sent. A create is never repeated
// after a failure that may have reached the server, so a key is never made
// twice.
func (s *APIKeysService) Create(ctx context.Context, workspaceID string, req *APIKeyCreateRequest) (*APIKey, *Response, error) {
	return callOne[APIKey](ctx, s.client, &createAPIKey, req, workspaceID)
}

var createAPIKey = endpoint{operation: "APIKeys.Create", method: http.MethodPost, route: "/api/workspaces/{id}/api-keys", secret: true}
