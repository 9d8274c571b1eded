package report

// The fast YAML emitter: a piece of JSON (yaml.go) written the way the
// YAML encoder writes it (block style, two-space indent, sequences
// indented in maps), without building its tree or running the encoder
// for each piece. A string the encoder would write as it is (plainSafe),
// or double-quoted as a timestamp (isStamp), is written here; any other
// is rendered by the encoder once and remembered (scalarText). Where the
// encoder's output would depend on more than the string (a key it writes
// as a complex "? key"), the emitter gives up and the piece goes to the
// encoder whole. Both are held to the encoder's YAML of the whole
// document by TestYAMLStreamedAsWhole and FuzzYAMLStreamed.

import (
	"strings"
	"time"
)

// yamlText is a scalar as the encoder writes it after "- ": its first
// line, and the lines of a literal block after it, indented as after a
// dash at column 0.
type yamlText struct {
	first string
	more  string
}

// fast writes the piece in y.toks, placed as at says, to y.out; false
// where the encoder must write it.
func (y *yamlWriter) fast(key *string, at int) bool {
	switch at {
	case asField:
		k, ok := y.keyText(*key)
		if !ok {
			return false
		}
		y.out.WriteString(k)
		y.out.WriteByte(':')
		_, ok = y.mapValue(0, 0)
		return ok
	case asElement:
		y.out.WriteString("  - ")
		_, ok := y.item(0, 2)
		return ok
	}
	if y.isContainer(0) {
		_, ok := y.container(0, 0, false)
		return ok
	}
	return false // a scalar document: its literal block's indent is the encoder's
}

// mapValue writes the value at y.toks[i] after "key:", the key at column
// col; it returns the index after the value.
func (y *yamlWriter) mapValue(i, col int) (int, bool) {
	if !y.isContainer(i) {
		y.out.WriteByte(' ')
		return y.scalar(i, col)
	}
	if y.isEmpty(i) {
		y.out.WriteByte(' ') // key: []
	} else {
		y.out.WriteByte('\n')
	}
	return y.container(i, col+2, false)
}

// item writes the value at y.toks[i] after "- ", the dash at column col.
func (y *yamlWriter) item(i, col int) (int, bool) {
	if y.isContainer(i) {
		return y.container(i, col+2, true)
	}
	return y.scalar(i, col)
}

// container writes the map or sequence at y.toks[i]: "{}" or "[]" when
// empty, else its entries or items at column col, the first not indented
// when inline (after a dash).
func (y *yamlWriter) container(i, col int, inline bool) (int, bool) {
	switch {
	case y.isEmpty(i):
		y.out.WriteByte(y.toks[i].kind)
		y.out.WriteByte(y.toks[i+1].kind)
		y.out.WriteByte('\n')
		return i + 2, true
	case y.toks[i].kind == '{':
		return y.entries(i+1, col, inline)
	}
	return y.items(i+1, col, inline)
}

// isContainer reports whether y.toks[i] opens a map or a sequence.
func (y *yamlWriter) isContainer(i int) bool { k := y.toks[i].kind; return k == '{' || k == '[' }

// isEmpty reports whether the container opened at y.toks[i] is empty.
func (y *yamlWriter) isEmpty(i int) bool { k := y.toks[i+1].kind; return k == '}' || k == ']' }

// entries writes a map's entries from y.toks[i] to its "}", keys at
// column col; the first is not indented when inline (it follows a dash).
func (y *yamlWriter) entries(i, col int, inline bool) (int, bool) {
	for first := true; y.toks[i].kind != '}'; first = false {
		k, ok := y.keyText(y.toks[i].s)
		if !ok {
			return 0, false
		}
		if !first || !inline {
			y.indent(col)
		}
		y.out.WriteString(k)
		y.out.WriteByte(':')
		if i, ok = y.mapValue(i+1, col); !ok {
			return 0, false
		}
	}
	return i + 1, true
}

// items writes a sequence's items from y.toks[i] to its "]", dashes at
// column col; the first is not indented when inline.
func (y *yamlWriter) items(i, col int, inline bool) (int, bool) {
	for first := true; y.toks[i].kind != ']'; first = false {
		if !first || !inline {
			y.indent(col)
		}
		y.out.WriteString("- ")
		var ok bool
		if i, ok = y.item(i, col); !ok {
			return 0, false
		}
	}
	return i + 1, true
}

// scalar writes the scalar at y.toks[i] and its line break; a literal
// block's lines after the first are indented for a key or a dash at
// column col.
func (y *yamlWriter) scalar(i, col int) (int, bool) {
	t := y.toks[i]
	if t.kind == 'l' {
		// a number, true, false or null: the encoder writes it as JSON does
		// (the tag it resolves is the one the parser gave it)
		y.out.WriteString(t.s)
		y.out.WriteByte('\n')
		return i + 1, true
	}
	txt, ok := y.scalarText(t.s)
	if !ok {
		return 0, false
	}
	y.out.WriteString(txt.first)
	y.out.WriteByte('\n')
	y.out.Write(appendIndentedLines(y.out.AvailableBuffer(), txt.more, col))
	return i + 1, true
}

// indent writes n spaces.
func (y *yamlWriter) indent(n int) {
	for range n {
		y.out.WriteByte(' ')
	}
}

// Limits of the fast emitter: the longest string whose rendering is
// remembered, and how many are (names repeat — nodes, drivers, reasons —,
// a log line's text seldom does); the longest key the encoder writes as
// it is (a longer one as "? key"); the longest string plainSafe takes.
const (
	maxRemembered      = 256
	rememberedAtMost   = 8192
	maxPlainKey        = 128
	maxPlainSafeLength = 4096
)

// scalarText is s as the encoder writes it in a block sequence.
func (y *yamlWriter) scalarText(s string) (yamlText, bool) {
	if plainSafe(s) {
		return yamlText{first: s}, true
	}
	if isStamp(s) {
		return yamlText{first: `"` + s + `"`}, true // a timestamp: quoted to stay a string
	}
	if t, ok := y.scalars[s]; ok {
		return t, true
	}
	y.buf.Reset()
	if err := y.encode(seq(str(s))); err != nil {
		return yamlText{}, false
	}
	out, ok := strings.CutPrefix(y.buf.String(), "- ")
	if !ok {
		return yamlText{}, false
	}
	first, more, _ := strings.Cut(out, "\n")
	t := yamlText{first: first, more: more}
	if len(s) <= maxRemembered && len(y.scalars) < rememberedAtMost {
		y.scalars[s] = t
	}
	return t, true
}

// keyText is key as the encoder writes it before ": "; false when it
// writes it otherwise (a complex key, "? key").
func (y *yamlWriter) keyText(key string) (string, bool) {
	if len(key) <= maxPlainKey && plainSafe(key) {
		return key, true
	}
	if k, ok := y.keys[key]; ok {
		return k, true
	}
	y.buf.Reset()
	if err := y.encode(keyed(key, str("-"))); err != nil {
		return "", false
	}
	k, ok := strings.CutSuffix(y.buf.String(), ": '-'\n")
	if !ok || strings.ContainsAny(k, "\n") || strings.HasPrefix(k, "? ") {
		return "", false
	}
	if len(key) <= maxRemembered && len(y.keys) < rememberedAtMost {
		y.keys[key] = k
	}
	return k, true
}

// plainSafe reports whether the encoder writes s plain, as it is: it
// starts with a letter or "/", has only letters, digits and "-._/^+=()",
// and is not a word of five letters or fewer (true, null, yes, off: YAML
// 1.1 booleans and nulls it quotes). A subset of what it writes plain,
// chosen so that no rule of YAML's can apply.
func plainSafe(s string) bool {
	if s == "" || len(s) > maxPlainSafeLength {
		return false
	}
	if c := s[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/') {
		return false
	}
	letters := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9', c == '-', c == '.', c == '_', c == '/', c == '^', c == '+', c == '=', c == '(', c == ')':
			letters = false
		default:
			return false
		}
	}
	return !letters || len(s) > 5
}

// isStamp reports whether s is a time as the JSON writes it
// (2024-08-12T04:48:01.734016Z): the encoder double-quotes it, since
// plain it would be read as a timestamp (the parser's test: the first of
// its layouts, which takes the JSON's times).
func isStamp(s string) bool {
	if len(s) < len("2006-01-02T15:04:05Z") || s[4] != '-' || s[len(s)-1] != 'Z' || strings.Trim(s, "0123456789-T:.Z") != "" {
		return false
	}
	_, err := time.Parse("2006-1-2T15:4:5.999999999Z07:00", s)
	return err == nil
}
