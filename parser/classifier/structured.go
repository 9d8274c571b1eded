package classifier

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// This file decodes the structured tail of a klog text line:
//
//	"msg" k1="quoted" k2=<
//		multi
//		line
//	 > k3={%+v struct dump with spaces} k4=["json"] k5=bare k6=(MISSING)
//
// The message and quoted values are Go-quoted (strconv.Quote); `key=<` blocks
// (klog ≥ v2.40) hold TAB-indented lines closed by a line " >"; `{…}` and `[…]`
// values are either %+v dumps (klog < v2.100, unquoted contents, scanned by
// balancing brackets only) or JSON (≥ v2.100, brackets inside JSON strings are
// skipped). Anything else is a bare token that ends at a blank or newline.
// Duplicate keys are kept in order; lookups let the last one win.

// parseStructured splits rest (which must start with a double quote) into the
// unquoted message and its key/value pairs. ok is false when rest does not
// hold a complete quoted message, i.e. the line is printf text after all.
// Pairs that cannot be decoded end the scan; the pairs read so far are kept.
func parseStructured(rest string) (msg string, kvs []kv, ok bool) {
	return appendStructured(nil, rest)
}

// appendStructured is parseStructured appending the pairs to dst, so that a
// caller can decode into a buffer of its own (classify uses one on its
// stack). kvs is nil when no pair was read and dst is nil.
func appendStructured(dst []kv, rest string) (msg string, kvs []kv, ok bool) {
	return appendStructuredIn(dst, rest, nil)
}

// appendStructuredIn is appendStructured with the values that need
// unquoting appended to arena when not nil (Record.Arena).
func appendStructuredIn(dst []kv, rest string, arena *[]byte) (msg string, kvs []kv, ok bool) {
	if len(rest) == 0 || rest[0] != '"' {
		return "", nil, false
	}
	msg, n, ok := readQuotedIn(rest, arena)
	if !ok {
		return "", nil, false
	}
	kvs = dst
	i := n
	for i < len(rest) {
		// Pairs are separated by one blank; tolerate runs of blanks/newlines.
		for i < len(rest) && (rest[i] == ' ' || rest[i] == '\n' || rest[i] == '\t' || rest[i] == '\r') {
			i++
		}
		if i >= len(rest) {
			break
		}
		j := i
		for j < len(rest) && isKeyByte(rest[j]) {
			j++
		}
		if j == i || j >= len(rest) || rest[j] != '=' {
			break // not a key=value pair: stop, keep what we have
		}
		key := rest[i:j]
		val, end := readValueIn(rest, j+1, arena)
		kvs = append(kvs, kv{Key: key, Value: val})
		if end <= j {
			break
		}
		i = end
	}
	return msg, kvs, true
}

// isKeyByte reports whether c may appear in a structured key. klog keys are
// Go identifiers in practice; dots and dashes are tolerated.
func isKeyByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c == '/' ||
		('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// readValue decodes the value that starts at s[i] and returns it with the
// index just past it.
func readValue(s string, i int) (string, int) { return readValueIn(s, i, nil) }

// readValueIn is readValue with arena (appendStructuredIn).
func readValueIn(s string, i int, arena *[]byte) (string, int) {
	if i >= len(s) {
		return "", i
	}
	switch s[i] {
	case '"':
		v, n, ok := readQuotedIn(s[i:], arena)
		if ok {
			return v, i + n
		}
		// Unterminated quote (line cut by a pager): take the rest raw.
		return s[i+1:], len(s)
	case '<':
		if i+1 < len(s) && s[i+1] == '\n' {
			return readBlock(s, i+2)
		}
	case '{', '[':
		end := scanBalanced(s, i)
		return s[i:end], end
	}
	j := i
	for j < len(s) && s[j] != ' ' && s[j] != '\n' {
		j++
	}
	return s[i:j], j
}

// readBlock decodes a klog multi-line value whose first line starts at s[i]:
// every line is prefixed by a TAB, the block ends with a line " >".
func readBlock(s string, i int) (string, int) {
	var b strings.Builder
	first := true
	for i < len(s) {
		nl := strings.IndexByte(s[i:], '\n')
		line := s[i:]
		next := len(s)
		if nl >= 0 {
			line = s[i : i+nl]
			next = i + nl + 1
		}
		if strings.HasPrefix(line, " >") {
			return b.String(), i + 2
		}
		if !first {
			b.WriteByte('\n')
		}
		first = false
		b.WriteString(strings.TrimPrefix(line, "\t"))
		i = next
	}
	return b.String(), len(s)
}

// scanBalanced returns the index just past the bracketed value starting at
// s[i] ('{' or '['). JSON strings are skipped when the value looks like JSON
// (`{"`, `["`, `[{`, `[]`, `{}`); %+v dumps are balanced on brackets alone.
// An unbalanced (truncated) value runs to the end of s.
func scanBalanced(s string, i int) int {
	json := i+1 < len(s) && (s[i+1] == '"' || (s[i] == '[' && (s[i+1] == '{' || s[i+1] == '[')))
	depth := 0
	for j := i; j < len(s); j++ {
		c := s[j]
		switch {
		case json && c == '"':
			_, n, ok := readQuoted(s[j:])
			if !ok {
				return len(s)
			}
			j += n - 1
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		case c == '\n' && !json:
			// %+v dumps are single-line; a newline means the value was cut.
			return j
		}
	}
	return len(s)
}

// readQuoted reads the Go- or JSON-quoted string at the start of s and returns
// its unquoted value and the number of bytes consumed. When strconv.Unquote
// rejects the text (invalid escapes), the raw inner text is returned.
//
// The closing quote is the first '"' not escaped by a backslash. Without a
// backslash before it (the common case) it is simply the first '"', found
// with one IndexByte; otherwise the search goes on from escape to escape:
// past each backslash and the byte it escapes, the next quote closes the
// string unless a backslash comes first.
func readQuoted(s string) (string, int, bool) { return readQuotedIn(s, nil) }

// readQuotedIn is readQuoted with arena (appendStructuredIn): an unquoted
// value with escapes is appended to it when not nil.
func readQuotedIn(s string, arena *[]byte) (string, int, bool) {
	if len(s) == 0 || s[0] != '"' {
		return "", 0, false
	}
	q := strings.IndexByte(s[1:], '"') + 1
	if q == 0 {
		return "", 0, false // no quote at all, escaped or not
	}
	b := strings.IndexByte(s[1:q], '\\') + 1
	if b == 0 {
		return s[1:q], q + 1, true
	}
	// s[b] is a backslash that is not escaped
	for {
		j := b + 2 // past the escaped byte
		if j >= len(s) {
			return "", 0, false
		}
		q = strings.IndexByte(s[j:], '"')
		if q < 0 {
			return "", 0, false
		}
		q += j
		e := strings.IndexByte(s[j:q], '\\')
		if e < 0 {
			break
		}
		b = j + e
	}
	if v, err := unquoteIn(s[:q+1], arena); err == nil {
		return v, q + 1, true
	}
	return s[1:q], q + 1, true
}

// unquote is strconv.Unquote for a double-quoted string q with escapes
// (whose only unescaped quotes are its first and last byte), copying the
// text between escapes in one piece rather than rune by rune.
func unquote(q string) (string, error) { return unquoteIn(q, nil) }

// unquoteIn is unquote appending the value to arena when not nil (for
// strings strconv.Unquote need not read).
func unquoteIn(q string, arena *[]byte) (string, error) {
	in := q[1 : len(q)-1]
	if strings.IndexByte(in, '\n') >= 0 || !utf8.ValidString(in) {
		// rejected, or invalid UTF-8 that Unquote turns into U+FFFD
		return strconv.Unquote(q)
	}
	var a []byte
	if arena != nil {
		a = *arena
	} else {
		a = make([]byte, 0, len(in)) // one allocation: the value is never longer than its quoted form
	}
	n := len(a)
	for {
		i := strings.IndexByte(in, '\\')
		if i < 0 {
			a = append(a, in...)
			break
		}
		a = append(a, in[:i]...)
		r, multibyte, rest, err := strconv.UnquoteChar(in[i:], '"')
		if err != nil {
			return "", err
		}
		if r < utf8.RuneSelf || !multibyte {
			a = append(a, byte(r))
		} else {
			a = utf8.AppendRune(a, r)
		}
		in = rest
	}
	if arena != nil {
		*arena = a
	}
	return unsafe.String(unsafe.SliceData(a[n:]), len(a)-n), nil // a[n:] is not written again (in an arena: until it is reused)
}

// lookup returns the value of the last pair named key.
func lookup(kvs []kv, key string) (string, bool) {
	for i := len(kvs) - 1; i >= 0; i-- {
		if kvs[i].Key == key {
			return kvs[i].Value, true
		}
	}
	return "", false
}

// jsonStringField returns the string value of "key" in a (possibly truncated)
// JSON object text, or "" when absent. Only the first occurrence is used, so
// callers should pass the smallest enclosing object they know.
func jsonStringField(raw, key string) string {
	pat := `"` + key + `":`
	k := strings.Index(raw, pat)
	if k < 0 {
		return ""
	}
	rest := strings.TrimLeft(raw[k+len(pat):], " ")
	v, _, ok := readQuoted(rest)
	if !ok {
		return ""
	}
	return v
}

// dumpField returns the value of Field in a %+v struct dump
// ("{AttachedVolume:{VolumeName:V VolumeSpec:0xc… NodeName:N …}"). Values are
// unquoted, so a value ends at the next blank — except when next names the
// field that follows, in which case it ends there (vSphere unique names hold
// blanks).
func dumpField(dump, field, next string) string {
	pat := field + ":"
	k := 0
	for {
		m := strings.Index(dump[k:], pat)
		if m < 0 {
			return ""
		}
		m += k
		// Field names start after '{' or ' '.
		if m == 0 || dump[m-1] == '{' || dump[m-1] == ' ' {
			k = m + len(pat)
			break
		}
		k = m + len(pat)
	}
	rest := dump[k:]
	if next != "" {
		if e := strings.Index(rest, " "+next+":"); e >= 0 {
			return rest[:e]
		}
	}
	e := strings.IndexAny(rest, " }\n")
	if e < 0 {
		return rest
	}
	return rest[:e]
}

// listValues splits a rendered list value: `[a b]`, `["a","b"]`, `"[ns/a ns/b]"`
// (already unquoted), `[{"name":"a","namespace":"ns"}]` (KObj JSON → "ns/a"),
// or a bare "a, b". Empty lists give nil.
func listValues(v string) []string {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		v = v[1 : len(v)-1]
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	var out []string
	if v[0] == '{' {
		// KObj objects.
		for len(v) > 0 {
			s := strings.IndexByte(v, '{')
			if s < 0 {
				break
			}
			e := strings.IndexByte(v[s:], '}')
			if e < 0 {
				e = len(v) - s - 1
			}
			obj := v[s : s+e+1]
			out = append(out, kobjName(obj))
			v = v[s+e+1:]
		}
		return out
	}
	for len(v) > 0 {
		v = strings.TrimLeft(v, " ,")
		if v == "" {
			break
		}
		if v[0] == '"' {
			s, n, ok := readQuoted(v)
			if !ok {
				out = append(out, strings.Trim(v, `"`))
				break
			}
			out = append(out, s)
			v = v[n:]
			continue
		}
		e := strings.IndexAny(v, " ,")
		if e < 0 {
			out = append(out, v)
			break
		}
		out = append(out, v[:e])
		v = v[e:]
	}
	return out
}

// kobjName renders a KObj value as "ns/name" (or "name"): accepts the text
// form "ns/name" and the JSON form {"name":"n","namespace":"ns"}.
func kobjName(v string) string {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "{") {
		return v
	}
	name := jsonStringField(v, "name")
	ns := jsonStringField(v, "namespace")
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
