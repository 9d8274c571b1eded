package parser

// Message is the message text of one log line: its wrapper (journald, CRI,
// docker-json, kubectl --timestamps, a `grep -r` prefix, …) and its klog
// header ("I0812 03:10:00.123456 1 file.go:12] ") removed, by the same code
// that reads them when parsing. A line without a klog header (JSON, logrus,
// a describe row) comes back as its wrapper's payload, or whole when it has
// no wrapper either. Renderers use it so that none of them parses log lines.
//
// line is one entry as read (Event.Text is one: its wrapper is already
// removed, so only the header goes); continuation lines, if any, stay.
func Message(line string) string {
	var u unwrapper
	w := u.unwrap([]byte(line))
	p := w.payload
	if p == nil { // a wrapper's shape that would not decode: keep the line
		p = []byte(line)
	}
	if h, ok := parseKlogHeader(p); ok {
		p = p[h.rest:]
	}
	return string(p)
}
