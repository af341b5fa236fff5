package seoapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// TestKindDocsListTheirStatuses holds the doc comment of each kind to the
// mapping in kindOfStatus: every status named in a kind's doc maps to that
// kind, and every status that maps to a kind other than
// ErrUnexpectedResponse is named in its doc (5xx as "any 5xx").
func TestKindDocsListTheirStatuses(t *testing.T) {
	t.Parallel()
	docs := kindDocs(t)
	kinds := map[string]error{
		"ErrUnauthorized": ErrUnauthorized, "ErrForbidden": ErrForbidden, "ErrNotFound": ErrNotFound,
		"ErrConflict": ErrConflict, "ErrValidation": ErrValidation, "ErrRateLimited": ErrRateLimited,
		"ErrServer": ErrServer, "ErrUnexpectedResponse": ErrUnexpectedResponse,
	}
	status := regexp.MustCompile(`\b[1-5]\d\d\b`)
	for name, kind := range kinds {
		doc, ok := docs[name]
		if !ok {
			t.Fatalf("%s has no doc comment", name)
		}
		var named []int
		for _, m := range status.FindAllString(doc, -1) {
			code, _ := strconv.Atoi(m)
			named = append(named, code)
			if got := kindOfStatus(code); got != kind {
				t.Errorf("%s's doc names %d, which maps to %v", name, code, got)
			}
		}
		if kind == ErrUnexpectedResponse {
			continue
		}
		for code := 100; code <= 599; code++ {
			if kindOfStatus(code) != kind || slices.Contains(named, code) {
				continue
			}
			if code >= 500 && kind == ErrServer {
				continue // "any 5xx"
			}
			t.Errorf("%d maps to %s, whose doc does not name it (%s: %s)", code, name, http.StatusText(code), doc)
		}
	}
}

// kindDocs returns the doc comments of the variables of errors.go.
func kindDocs(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if v.Doc != nil {
				docs[v.Names[0].Name] = v.Doc.Text()
			}
		}
	}
	return docs
}
