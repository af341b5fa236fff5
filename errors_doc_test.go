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

// TestKindsReadPlainly: godoc shows each exported variable of errors.go
// as its declaration, so each is built by a call with literal arguments,
// such as newKind("not_found", "seoapi: not found"), not a value of an
// unexported type spelled out field by field.
func TestKindsReadPlainly(t *testing.T) {
	t.Parallel()
	for _, v := range varSpecs(t) {
		if !v.Names[0].IsExported() {
			continue
		}
		call, ok := v.Values[0].(*ast.CallExpr)
		if !ok {
			t.Errorf("%s is not declared by a call", v.Names[0].Name)
			continue
		}
		for _, arg := range call.Args {
			if _, ok := arg.(*ast.BasicLit); !ok {
				t.Errorf("%s is declared with an argument that is not a literal", v.Names[0].Name)
			}
		}
	}
}

// kindDocs returns the doc comments of the variables of errors.go.
func kindDocs(t *testing.T) map[string]string {
	t.Helper()
	docs := map[string]string{}
	for _, v := range varSpecs(t) {
		if v.Doc != nil {
			docs[v.Names[0].Name] = v.Doc.Text()
		}
	}
	return docs
}

// varSpecs returns the variables errors.go declares.
func varSpecs(t *testing.T) []*ast.ValueSpec {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var specs []*ast.ValueSpec
	for _, decl := range f.Decls {
		if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, spec := range g.Specs {
				specs = append(specs, spec.(*ast.ValueSpec))
			}
		}
	}
	return specs
}
