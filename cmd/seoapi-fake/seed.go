package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/seoapi/seoapi-go/seoapitest"
)

// seedFile is the shape of the -seed file (see the package doc).
type seedFile struct {
	Workspaces []seedWorkspace `json:"workspaces"`
}

type seedWorkspace struct {
	Name         string            `json:"name"`
	Members      []seedMember      `json:"members"`
	ContentPlans []seedContentPlan `json:"contentPlans"`
	Projects     []seedProject     `json:"projects"`
}

type seedMember struct {
	Email string `json:"email"`
	Role  string `json:"role"`
}

type seedContentPlan struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

type seedProject struct {
	Name         string            `json:"name"`
	Domain       string            `json:"domain"`
	ContentPlans []seedContentPlan `json:"contentPlans"`
	Competitors  []seedCompetitor  `json:"competitors"`
}

type seedCompetitor struct {
	Name   string `json:"name"`
	Domain string `json:"domain"`
}

// seedFromFile loads path into the fake's account of Key and prints the
// ID of every workspace and project it created.
func seedFromFile(fake *seoapitest.Server, path string, out io.Writer) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	seed, err := parseSeed(data)
	if err != nil {
		return fmt.Errorf("seed %s: %w", path, err)
	}
	if err := seed.validate(); err != nil {
		return fmt.Errorf("seed %s: %w", path, err)
	}
	seed.load(fake, out)
	return nil
}

// parseSeed decodes the file, and says where it went wrong in terms of
// lines and fields.
func parseSeed(data []byte) (*seedFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var seed seedFile
	err := dec.Decode(&seed)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		return nil, errors.New("the file is empty; want a JSON object with a \"workspaces\" array")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("%s: the JSON ends too soon", position(data, int64(len(data))))
	case errors.As(err, &syntax):
		return nil, fmt.Errorf("%s: %v", position(data, syntax.Offset), syntax)
	case errors.As(err, &typ):
		return nil, fmt.Errorf("%s: field %s: want %s, got JSON %s", position(data, typ.Offset), fieldName(typ), typ.Type, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return nil, fmt.Errorf("%s: unknown field %s", keyLine(data, name), name)
	default:
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: unexpected data after the seed object", position(data, dec.InputOffset()))
	}
	return &seed, nil
}

// fieldName is the dotted path of the field e is about, without array
// indexes: encoding/json puts them in the path on some Go versions
// (workspaces.0.name) and not on others (workspaces.name), so they are
// left out and the message reads the same on every Go.
func fieldName(e *json.UnmarshalTypeError) string {
	var names []string
	for name := range strings.SplitSeq(e.Field, ".") {
		if _, err := strconv.Atoi(name); err != nil && name != "" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "(the top level)"
	}
	return strings.Join(names, ".")
}

// position turns a byte offset into "line L, column C".
func position(data []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int64(len(before) - bytes.LastIndexByte(before, '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}

// keyLine finds the line of the first member named quoted, for errors
// encoding/json reports without an offset.
func keyLine(data []byte, quoted string) string {
	loc := regexp.MustCompile(regexp.QuoteMeta(quoted) + `\s*:`).FindIndex(data)
	if loc == nil {
		return "somewhere"
	}
	return position(data, int64(loc[0]))
}

// validate checks what the API itself would refuse, naming the field.
func (s *seedFile) validate() error {
	for i, ws := range s.Workspaces {
		at := fmt.Sprintf("workspaces[%d]", i)
		if err := required(at+".name", ws.Name); err != nil {
			return err
		}
		seen := map[string]bool{}
		for j, m := range ws.Members {
			field := fmt.Sprintf("%s.members[%d].email", at, j)
			if !strings.Contains(m.Email, "@") {
				return fmt.Errorf("%s: %q is not an email address", field, m.Email)
			}
			if seen[strings.ToLower(m.Email)] {
				return fmt.Errorf("%s: %q is already a member of this workspace", field, m.Email)
			}
			seen[strings.ToLower(m.Email)] = true
		}
		if err := plansValid(at, ws.ContentPlans); err != nil {
			return err
		}
		for j, p := range ws.Projects {
			pat := fmt.Sprintf("%s.projects[%d]", at, j)
			if err := required(pat+".name", p.Name); err != nil {
				return err
			}
			if err := plansValid(pat, p.ContentPlans); err != nil {
				return err
			}
			for k, c := range p.Competitors {
				if err := required(fmt.Sprintf("%s.competitors[%d].name", pat, k), c.Name); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func plansValid(at string, plans []seedContentPlan) error {
	for k, cp := range plans {
		if err := required(fmt.Sprintf("%s.contentPlans[%d].name", at, k), cp.Name); err != nil {
			return err
		}
	}
	return nil
}

func required(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("%s: required, and must not be blank", field)
	}
	return nil
}

// load adds the validated records to the fake.
func (s *seedFile) load(fake *seoapitest.Server, out io.Writer) {
	for _, w := range s.Workspaces {
		ws := fake.AddWorkspace(w.Name)
		fmt.Fprintf(out, "seeded workspace %s %q\n", ws, w.Name)
		for _, m := range w.Members {
			fake.AddMember(ws, m.Email, m.Role)
		}
		for _, cp := range w.ContentPlans {
			fake.AddContentPlan(ws, "", cp.Name, cp.Status)
		}
		for _, p := range w.Projects {
			id := fake.AddProject(ws, p.Name, p.Domain)
			fmt.Fprintf(out, "seeded project %s %q in %s\n", id, p.Name, ws)
			for _, cp := range p.ContentPlans {
				fake.AddContentPlan(ws, id, cp.Name, cp.Status)
			}
			for _, c := range p.Competitors {
				fake.AddCompetitor(ws, id, c.Name, c.Domain)
			}
		}
	}
}
