package seoapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// marshalRequest encodes a request type: typed (its fields, in a type
// without methods), then the members of extra, sorted by name as
// encoding/json sorts a map, that no set typed field names.
func marshalRequest(typed any, extra map[string]any) ([]byte, error) {
	b, err := json.Marshal(typed)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, err
	}
	b = b[:len(b)-1] // reopen the object
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if _, ok := set[k]; ok {
			continue
		}
		v, err := json.Marshal(extra[k])
		if err != nil {
			return nil, fmt.Errorf("extra field %q: %w", k, err)
		}
		key, _ := json.Marshal(k)
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(append(b, key...), ':'), v...)
	}
	return append(b, '}'), nil
}
