package redislimit

import (
	"fmt"

	"github.com/seoapi/seoapi-go"
)

// secretRun is the length of a run of letters and digits from which a
// name looks like a generated secret rather than a name a person chose.
const secretRun = 24

// checkName accepts 1 to maxNameLen printable ASCII characters without
// spaces or braces (a brace would change the key's hash tag), and refuses
// a name that looks like an API key.
func checkName(name string) error {
	invalid := func(why string) error {
		return fmt.Errorf("%w: redislimit.New: name %s", seoapi.ErrInvalidArgument, why)
	}
	switch {
	case name == "":
		return invalid("is empty")
	case len(name) > maxNameLen:
		return invalid(fmt.Sprintf("is longer than %d bytes", maxNameLen))
	}
	for i := range len(name) {
		if c := name[i]; c <= ' ' || c > '~' || c == '{' || c == '}' {
			return invalid("may hold only printable ASCII without spaces or braces")
		}
	}
	if looksSecret(name) {
		// The name is not echoed: it may be the key.
		return invalid(fmt.Sprintf("looks like an API key (%d or more letters and digits in a row); name the budget instead, for example \"crawler-prod\"", secretRun))
	}
	return nil
}

// looksSecret reports a run of at least secretRun letters and digits that
// mixes both, as generated keys do.
func looksSecret(name string) bool {
	run, letters, digits := 0, false, false
	for i := range len(name) {
		c := name[i]
		isDigit := c >= '0' && c <= '9'
		isLetter := (c|0x20) >= 'a' && (c|0x20) <= 'z'
		if !isDigit && !isLetter {
			run, letters, digits = 0, false, false
			continue
		}
		run++
		letters, digits = letters || isLetter, digits || isDigit
		if run >= secretRun && letters && digits {
			return true
		}
	}
	return false
}
