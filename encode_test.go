package seoapi

import (
	"encoding/json"
	"reflect"
	"testing"
)

func FuzzRequestEncoding(f *testing.F) {
	f.Add("Shop", "shop.example", "name", "x")
	f.Add("q\"\\\n<&>\u2028", "\xff\xfe", "domain", "")
	f.Add("", "", "", "\x00")
	f.Fuzz(func(t *testing.T, name, domain, extraKey, extraVal string) {
		extra := map[string]any{extraKey: extraVal}
		b, err := encodeBody(&ProjectCreateRequest{Name: name, Domain: domain, Extra: extra})
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("invalid JSON %q: %v", b, err)
		}
		want := requestAsMap(t, extra, map[string]string{"name": name, "domain": domain})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}
