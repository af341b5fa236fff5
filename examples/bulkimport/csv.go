package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/seoapi/seoapi-go"
)

// parseCSV reads projects from CSV data whose header row names a "name"
// and a "domain" column, in any order and case.
func parseCSV(data []byte) ([]seoapi.ProjectCreateRequest, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("reading the CSV header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	name, okName := col["name"]
	domain, okDomain := col["domain"]
	if !okName || !okDomain {
		return nil, errors.New(`the CSV's header row needs a "name" and a "domain" column`)
	}
	var out []seoapi.ProjectCreateRequest
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		p := seoapi.ProjectCreateRequest{Name: field(rec, name), Domain: field(rec, domain)}
		if p.Name == "" {
			return nil, fmt.Errorf("CSV line %d: a project needs a name", line)
		}
		out = append(out, p)
	}
}

func field(rec []string, i int) string {
	if i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}
