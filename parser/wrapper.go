package parser

import (
	"bytes"
	"strconv"
	"time"
	"unicode/utf8"
)

// wrapKind names an outer wrapper around the log payload.
type wrapKind uint8

const (
	wrapNone      wrapKind = iota
	wrapJournald           // "Mon DD hh:mm:ss host proc[pid]: " (also short-iso)
	wrapCRI                // "2024-…Z stderr F "
	wrapDocker             // {"log":"…\n","stream":"stderr","time":"…"}
	wrapKubectlTS          // "2024-…Z " (kubectl logs --timestamps)
	wrapUI                 // "7/29/2016 7:38:17 PM" glued to the payload (Rancher UI)
	numWraps
)

// wrapNames are the names used in Input.Wrapper and Options.Format.
var wrapNames = [numWraps]string{"none", "journald", "cri", "docker-json", "kubectl-timestamps", "ui-timestamp"}

// grepPrefix is the name of the `grep -r` file-name prefix "wrapper".
const grepPrefix = "grep-prefix"

// unwrapped is one physical line with its wrappers removed.
type unwrapped struct {
	kind    wrapKind
	grep    bool   // a `grep -r` "path:" prefix was removed
	payload []byte // what the wrapper carried (may alias the line or a scratch buffer)
	ts      []byte // the wrapper's timestamp text, nil when none
	host    []byte // journald host
	proc    []byte // journald process name
	partial bool   // CRI "P" or a docker record without a trailing newline: join with the next
	broken  bool   // the line starts like the wrapper but could not be decoded
}

// unwrapper removes wrappers line by line. It remembers the wrapper of the
// previous line and tries it first; a line that does not fit falls back to
// the other wrappers, so mixed inputs (a journald paste followed by raw klog)
// work line by line. With a forced wrapper only that one is tried.
type unwrapper struct {
	prefer  wrapKind
	forced  bool
	scratch []byte
}

var monthNames = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

func monthIndex(p []byte) int {
	if len(p) < 3 {
		return 0
	}
	for i, m := range monthNames {
		if p[0] == m[0] && p[1] == m[1] && p[2] == m[2] {
			return i + 1
		}
	}
	return 0
}

// sniffSample is how many non-empty lines sniffWrapper scores.
const sniffSample = 200

// sniffWrapper scores the first sniffSample non-empty lines of head against
// every wrapper and returns the one most lines fit (wrapNone when klog lines
// without a wrapper dominate). It decides which wrapper unwrap tries first;
// each line still falls back to the others on its own.
func sniffWrapper(head []byte) wrapKind {
	var score [numWraps]int
	var u unwrapper
	n := 0
	for len(head) > 0 && n < sniffSample {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue
		}
		n++
		if rest, ok := cutGrepPrefix(line); ok {
			line = rest
		}
		found := false
		for k := wrapJournald; k < numWraps; k++ {
			var out unwrapped
			if u.try(k, line, &out) {
				score[out.kind]++
				found = true
				break
			}
		}
		if !found && looksKlog(line) {
			score[wrapNone]++
		}
	}
	best := wrapNone
	for k := wrapJournald; k < numWraps; k++ {
		if score[k] > score[best] {
			best = k
		}
	}
	return best
}

// unwrap removes the wrappers of one line.
func (u *unwrapper) unwrap(line []byte) unwrapped {
	var out unwrapped
	if len(line) > 0 && line[0] == '`' && !bytes.HasPrefix(line, []byte("```")) {
		line = bytes.TrimRight(line[1:], "`")
	}
	if !u.forced && looksKlog(line) {
		out.payload = line
		return out
	}
	if rest, ok := cutGrepPrefix(line); ok {
		out.grep = true
		line = rest
	}
	if u.forced {
		if u.prefer != wrapNone {
			u.try(u.prefer, line, &out)
		}
		if out.payload == nil && !out.broken {
			out.kind = wrapNone
			out.payload = line
		}
		return out
	}
	if u.prefer != wrapNone && u.try(u.prefer, line, &out) {
		return out
	}
	for k := wrapJournald; k < numWraps; k++ {
		if k != u.prefer && u.try(k, line, &out) {
			u.prefer = k
			return out
		}
	}
	if out.broken {
		return out
	}
	out.kind = wrapNone
	out.payload = line
	return out
}

// try decodes line as wrapper k; it fills out and reports success.
func (u *unwrapper) try(k wrapKind, line []byte, out *unwrapped) bool {
	switch k {
	case wrapJournald:
		return unwrapJournald(line, out)
	case wrapCRI, wrapKubectlTS:
		return unwrapRFC3339(line, out)
	case wrapDocker:
		return u.unwrapDocker(line, out)
	case wrapUI:
		return unwrapUI(line, out)
	}
	return false
}

// cutGrepPrefix removes a `grep -r` "path:" or "path:123:" prefix when what
// follows starts like a log line.
func cutGrepPrefix(line []byte) ([]byte, bool) {
	n := min(len(line), 512)
	c := bytes.IndexByte(line[:n], ':')
	if c <= 0 {
		return nil, false
	}
	prefix := line[:c]
	if bytes.ContainsAny(prefix, " \t\"'{}[]<>=") {
		return nil, false
	}
	if bytes.IndexByte(prefix, '/') < 0 && !hasLogExt(prefix) {
		return nil, false
	}
	rest := line[c+1:]
	// grep -n line number
	if i := bytes.IndexByte(rest[:min(len(rest), 12)], ':'); i > 0 {
		if _, err := strconv.Atoi(string(rest[:i])); err == nil {
			rest = rest[i+1:]
		}
	}
	if len(rest) == 0 {
		return nil, false
	}
	switch c := rest[0]; {
	case isDigit(c), c == '{', c == '`':
		return rest, true
	case looksKlog(rest), monthIndex(rest) > 0:
		return rest, true
	}
	return nil, false
}

func hasLogExt(p []byte) bool {
	for _, ext := range []string{".log", ".txt", ".out", ".gz", "messages"} {
		if bytes.Contains(p, []byte(ext)) {
			return true
		}
	}
	return false
}

// unwrapJournald decodes "Mon DD hh:mm:ss host proc[pid]: msg" (syslog style,
// journalctl's default).
func unwrapJournald(line []byte, out *unwrapped) bool {
	if len(line) < 16 || monthIndex(line) == 0 || line[3] != ' ' {
		return false
	}
	i := 4
	if line[i] == ' ' {
		i++
	}
	for i < len(line) && isDigit(line[i]) {
		i++
	}
	if i >= len(line) || line[i] != ' ' || i+9 > len(line) {
		return false
	}
	tsEnd := i + 9
	if line[i+3] != ':' || line[i+6] != ':' || !isDigit(line[i+1]) || !isDigit(line[i+8]) {
		return false
	}
	if tsEnd >= len(line) || line[tsEnd] != ' ' {
		return false
	}
	return journaldTail(line, line[:tsEnd], tsEnd+1, out)
}

// journaldTail decodes "host proc[pid]: msg" starting at i.
func journaldTail(line, ts []byte, i int, out *unwrapped) bool {
	sp := bytes.IndexByte(line[i:], ' ')
	if sp <= 0 {
		return false
	}
	host := line[i : i+sp]
	j := i + sp + 1
	colon := bytes.Index(line[j:min(len(line), j+128)], []byte(": "))
	if colon <= 0 {
		// "proc[pid]:" at the very end (empty message)
		if bytes.HasSuffix(line, []byte(":")) && j < len(line)-1 {
			colon = len(line) - 1 - j
		} else {
			return false
		}
	}
	tag := line[j : j+colon]
	if bytes.IndexByte(tag, ' ') >= 0 {
		return false
	}
	proc := tag
	if b := bytes.IndexByte(tag, '['); b >= 0 {
		if !bytes.HasSuffix(tag, []byte("]")) {
			return false
		}
		proc = tag[:b]
	}
	out.kind = wrapJournald
	out.ts = ts
	out.host = host
	out.proc = proc
	if j+colon+2 <= len(line) {
		out.payload = line[j+colon+2:]
	} else {
		out.payload = line[len(line):]
	}
	return true
}

// rfc3339End returns the length of an RFC 3339 timestamp at the start of p
// ("2006-01-02T15:04:05[.frac](Z|±hh:mm|±hhmm)"), or 0.
func rfc3339End(p []byte) int {
	if len(p) < 20 || !isDigit(p[0]) || p[4] != '-' || p[7] != '-' || (p[10] != 'T' && p[10] != ' ') || p[13] != ':' {
		return 0
	}
	i := 19
	if i < len(p) && (p[i] == '.' || p[i] == ',') {
		i++
		for i < len(p) && isDigit(p[i]) {
			i++
		}
	}
	if i >= len(p) {
		return 0
	}
	switch p[i] {
	case 'Z':
		return i + 1
	case '+', '-':
		j := i + 1
		for j < len(p) && j < i+6 && (isDigit(p[j]) || p[j] == ':') {
			j++
		}
		if j-i >= 3 {
			return j
		}
	}
	return 0
}

// unwrapRFC3339 decodes CRI ("ts stream F|P msg"), kubectl --timestamps
// ("ts msg") and journalctl -o short-iso ("ts host proc[pid]: msg").
func unwrapRFC3339(line []byte, out *unwrapped) bool {
	n := rfc3339End(line)
	if n == 0 || n >= len(line) || line[n] != ' ' || line[10] != 'T' {
		return false
	}
	ts := line[:n]
	rest := line[n+1:]
	for _, s := range [][]byte{[]byte("stderr "), []byte("stdout ")} {
		if bytes.HasPrefix(rest, s) && len(rest) >= len(s)+1 {
			tag := rest[len(s)]
			if (tag == 'F' || tag == 'P') && (len(rest) == len(s)+1 || rest[len(s)+1] == ' ') {
				out.kind = wrapCRI
				out.ts = ts
				out.partial = tag == 'P'
				if len(rest) > len(s)+2 {
					out.payload = rest[len(s)+2:]
				} else {
					out.payload = rest[len(rest):]
				}
				return true
			}
		}
	}
	// short-iso journald: second token ends with "]:" or ":" and the payload follows
	if sp := bytes.IndexByte(rest, ' '); sp > 0 && !looksKlog(rest) && rest[0] != '{' {
		if sp2 := bytes.IndexByte(rest[sp+1:], ' '); sp2 > 0 {
			tag := rest[sp+1 : sp+1+sp2]
			if bytes.HasSuffix(tag, []byte("]:")) {
				return journaldTail(line, ts, n+1, out)
			}
		}
	}
	out.kind = wrapKubectlTS
	out.ts = ts
	out.payload = rest
	return true
}

// unwrapDocker decodes one docker json-file record without a full JSON
// decoder: only "log" and "time" are read.
func (u *unwrapper) unwrapDocker(line []byte, out *unwrapped) bool {
	const head = `{"log":"`
	if !bytes.HasPrefix(line, []byte(head)) {
		return false
	}
	s, end, ok := u.jsonString(line, len(head)-1)
	if !ok {
		out.broken = true
		out.kind = wrapDocker
		return false
	}
	out.kind = wrapDocker
	if t := bytes.Index(line[end:], []byte(`"time":"`)); t >= 0 {
		ts := line[end+t+len(`"time":"`):]
		if q := bytes.IndexByte(ts, '"'); q >= 0 {
			out.ts = ts[:q]
		}
	}
	if bytes.HasSuffix(s, []byte("\n")) {
		s = s[:len(s)-1]
		if bytes.HasSuffix(s, []byte("\r")) {
			s = s[:len(s)-1]
		}
	} else {
		out.partial = true
	}
	out.payload = s
	return true
}

// jsonString decodes the JSON string whose opening quote is at p[i]. It
// returns the decoded bytes (aliasing p when there is no escape), the offset
// after the closing quote, and ok.
func (u *unwrapper) jsonString(p []byte, i int) ([]byte, int, bool) {
	if i >= len(p) || p[i] != '"' {
		return nil, 0, false
	}
	i++
	start := i
	for j := i; j < len(p); j++ {
		switch p[j] {
		case '"':
			return p[start:j], j + 1, true
		case '\\':
			return u.jsonStringSlow(p, start)
		}
	}
	return nil, 0, false
}

func (u *unwrapper) jsonStringSlow(p []byte, start int) ([]byte, int, bool) {
	b := u.scratch[:0]
	for j := start; j < len(p); j++ {
		c := p[j]
		if c == '"' {
			u.scratch = b
			return b, j + 1, true
		}
		if c != '\\' {
			b = append(b, c)
			continue
		}
		j++
		if j >= len(p) {
			break
		}
		switch p[j] {
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'u':
			if j+4 < len(p) {
				if r, err := strconv.ParseUint(string(p[j+1:j+5]), 16, 32); err == nil {
					b = utf8.AppendRune(b, rune(r))
					j += 4
					continue
				}
			}
			b = append(b, 'u')
		default:
			b = append(b, p[j])
		}
	}
	u.scratch = b
	return nil, 0, false
}

// unwrapUI decodes the Rancher UI prefix "M/D/YYYY H:MM:SS AM|PM" glued to the
// klog level letter (real-logs/015).
func unwrapUI(line []byte, out *unwrapped) bool {
	if len(line) < 18 || !isDigit(line[0]) {
		return false
	}
	s1 := bytes.IndexByte(line[:min(len(line), 3)], '/')
	if s1 <= 0 {
		return false
	}
	sp := bytes.IndexByte(line[:min(len(line), 12)], ' ')
	if sp < 0 {
		return false
	}
	i := sp + 1
	for i < len(line) && (isDigit(line[i]) || line[i] == ':') {
		i++
	}
	if i+3 > len(line) || line[i] != ' ' || (line[i+1] != 'A' && line[i+1] != 'P') || line[i+2] != 'M' {
		return false
	}
	out.kind = wrapUI
	out.ts = line[:i+3]
	rest := line[i+3:]
	if len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
	}
	out.payload = rest
	return true
}

// wrapTime is what a wrapper timestamp says.
type wrapTime struct {
	abs  time.Time // absolute instant when the wrapper has year and offset
	w    wall      // wall clock when it has no zone (journald, UI)
	year int       // year when known without a zone (UI)
}

// parseWrapTime decodes the wrapper timestamp text of kind k.
func parseWrapTime(k wrapKind, ts []byte) (wt wrapTime, ok bool) {
	if len(ts) == 0 {
		return wt, false
	}
	switch k {
	case wrapCRI, wrapKubectlTS, wrapDocker, wrapJournald:
		if isDigit(ts[0]) {
			s := string(ts)
			for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999-0700"} {
				if t, err := time.Parse(layout, s); err == nil {
					wt.abs = t
					return wt, true
				}
			}
			return wt, false
		}
		// "Jun  7 05:19:34"
		m := monthIndex(ts)
		if m == 0 || len(ts) < 15 {
			return wt, false
		}
		f := bytes.Fields(ts[4:])
		if len(f) != 2 || len(f[1]) != 8 {
			return wt, false
		}
		d, err := strconv.Atoi(string(f[0]))
		if err != nil {
			return wt, false
		}
		h, ok1 := num(f[1], 0, 2)
		mi, ok2 := num(f[1], 3, 2)
		se, ok3 := num(f[1], 6, 2)
		if !ok1 || !ok2 || !ok3 {
			return wt, false
		}
		wt.w = wall{mon: m, day: d, hour: h, min: mi, sec: se}
		return wt, wt.w.valid()
	case wrapUI:
		t, err := time.Parse("1/2/2006 3:04:05 PM", string(ts))
		if err != nil {
			return wt, false
		}
		wt.w = wall{mon: int(t.Month()), day: t.Day(), hour: t.Hour(), min: t.Minute(), sec: t.Second()}
		wt.year = t.Year()
		return wt, true
	}
	return wt, false
}
