package bulk

import "fmt"

// Op is what an Action does to one item.
type Op int

// The operations of a plan.
const (
	// OpNone: the item is as wanted (in the plan's read of the list, or
	// as a write the journal records as done left it); nothing is sent.
	// An OpNone action never has Fields.
	OpNone Op = iota
	// OpCreate: the item is missing and is created.
	OpCreate
	// OpUpdate: the item exists with other fields; the fields that differ
	// are sent.
	OpUpdate
	// OpDelete: the item exists but is not wanted (only with Prune).
	OpDelete
)

var opNames = [...]string{OpNone: "none", OpCreate: "create", OpUpdate: "update", OpDelete: "delete"}

// String returns "none", "create", "update" or "delete".
func (o Op) String() string {
	if o < 0 || int(o) >= len(opNames) {
		return fmt.Sprintf("Op(%d)", int(o))
	}
	return opNames[o]
}

// MarshalText encodes the Op as its name, for the journal.
func (o Op) MarshalText() ([]byte, error) {
	if o < 0 || int(o) >= len(opNames) {
		return nil, fmt.Errorf("bulk: no such Op %d", int(o))
	}
	return []byte(opNames[o]), nil
}

// UnmarshalText reads an Op's name.
func (o *Op) UnmarshalText(b []byte) error {
	for i, name := range opNames {
		if string(b) == name {
			*o = Op(i)
			return nil
		}
	}
	return fmt.Errorf("bulk: no such Op %q", b)
}
