package jsonx

// listKeys are the envelope keys that hold a list, before the resource's
// own plural name.
var listKeys = [...]string{"data", "items", "results"}

// List finds the array in a list response body: the body itself when it is
// an array, else the member named data, items, results or one of plurals
// (normalised names, in that order), else the object's only array member.
// A null list member gives an empty list. ok is false when the body holds
// no list at all.
func List(body Value, plurals ...string) (list Value, ok bool) {
	body = Trim(body)
	switch body.Kind() {
	case '[':
		return body, true
	case '{':
	default:
		return nil, false
	}
	var named [len(listKeys) + 4]Value
	var onlyArray Value
	arrays := 0
	EachField(body, func(key []byte, val Value) bool {
		if val.IsArray() {
			arrays++
			onlyArray = val
		}
		if !val.IsArray() && !val.IsNull() {
			return true
		}
		for i, name := range listKeys {
			if string(key) == name && named[i] == nil {
				named[i] = val
			}
		}
		for i, name := range plurals {
			if i < 4 && string(key) == name && named[len(listKeys)+i] == nil {
				named[len(listKeys)+i] = val
			}
		}
		return true
	})
	for _, v := range named {
		if v != nil {
			if v.IsNull() {
				return Value("[]"), true
			}
			return v, true
		}
	}
	if arrays == 1 {
		return onlyArray, true
	}
	return nil, false
}

// Single finds the object in a single-resource response body: the body
// itself when it has an "id" member, else its data member or a member
// named one of singulars (normalised) when that is an object, else the
// body itself.
func Single(body Value, singulars ...string) Value {
	body = Trim(body)
	if !body.IsObject() {
		return body
	}
	var inner Value
	hasID := false
	EachField(body, func(key []byte, val Value) bool {
		switch {
		case string(key) == "id":
			hasID = true
			return false
		case inner == nil && val.IsObject() && string(key) == "data":
			inner = val
		case inner == nil && val.IsObject() && contains(singulars, string(key)):
			inner = val
		}
		return true
	})
	if hasID || inner == nil {
		return body
	}
	return inner
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
