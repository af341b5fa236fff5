package jsonx

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The decoding of a JSON string's content, as encoding/json decodes it:
// escapes decoded, a lone surrogate and each byte of invalid UTF-8
// replaced by U+FFFD. It is written here, rather than left to
// json.Unmarshal, so that a string costs one allocation of its exact
// decoded length, and so that what a string decodes to can be measured
// before anything is allocated: invalid UTF-8 makes a string up to three
// times longer than its JSON text.

// unquote reads the content s of a JSON string (without its quotes),
// handing each decoded piece to emit, a byte slice or a rune, and reports
// false when s is not a valid JSON string's content.
func unquote(s []byte, emitBytes func([]byte), emitRune func(rune)) bool {
	for i := 0; i < len(s); {
		// Copy the run of plain bytes up to the next special byte at once.
		if j := nextSpecialOrHigh(s, i); j > i {
			emitBytes(s[i:j])
			i = j
			continue
		}
		switch c := s[i]; {
		case c == '\\':
			if i+1 >= len(s) {
				return false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				emitBytes(s[i+1 : i+2])
			case 'b':
				emitRune('\b')
			case 'f':
				emitRune('\f')
			case 'n':
				emitRune('\n')
			case 'r':
				emitRune('\r')
			case 't':
				emitRune('\t')
			case 'u':
				r := hex4(s, i+2)
				if r < 0 {
					return false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if r2 := unicodeEscape(s, i); r2 >= 0 {
						if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
							emitRune(dec)
							i += 6
							continue
						}
					}
					r = unicode.ReplacementChar
				}
				emitRune(r)
				continue
			default:
				return false
			}
			i += 2
		case c == '"' || c < 0x20:
			return false
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				emitRune(unicode.ReplacementChar)
			} else {
				emitBytes(s[i : i+size])
			}
			i += size
		}
	}
	return true
}

// nextSpecialOrHigh returns the index of the first byte at or after i that
// is '"', '\\', a control character or not ASCII, or len(s).
func nextSpecialOrHigh(s []byte, i int) int {
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// unicodeEscape returns the rune of the \uXXXX escape at s[i:], or -1.
func unicodeEscape(s []byte, i int) rune {
	if i+1 >= len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return -1
	}
	return hex4(s, i+2)
}

// hex4 returns the value of the four hex digits at s[i:], or -1.
func hex4(s []byte, i int) rune {
	if len(s)-i < 4 {
		return -1
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// appendUnquoted appends the decoded content s of a JSON string to dst,
// reporting false, with dst as it was, when s is not valid.
func appendUnquoted(dst, s []byte) ([]byte, bool) {
	out := dst
	ok := unquote(s,
		func(b []byte) { out = append(out, b...) },
		func(r rune) { out = utf8.AppendRune(out, r) })
	if !ok {
		return dst, false
	}
	return out, true
}

// unquotedLen returns the length of the decoded content s of a JSON
// string, reporting false when s is not valid.
func unquotedLen(s []byte) (int, bool) {
	n := 0
	ok := unquote(s,
		func(b []byte) { n += len(b) },
		func(r rune) { n += utf8.RuneLen(r) })
	if !ok {
		return 0, false
	}
	return n, true
}
