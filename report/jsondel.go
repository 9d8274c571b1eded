package report

import (
	"bytes"
	"io"
)

// delEscaper passes JSON text on with every DEL byte (U+007F) written as
// \u007f. JSON lets DEL stand unescaped in a string, and the encoders
// leave it so, but it is a control character a terminal acts on, and log
// text is untrusted. In valid JSON a raw DEL can only stand inside a
// string (never inside a multi-byte UTF-8 sequence), where \u007f means
// the same.
type delEscaper struct{ w io.Writer }

func (d delEscaper) Write(p []byte) (int, error) {
	done := 0
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0x7f)
		if i < 0 {
			n, err := d.w.Write(p)
			return done + n, err
		}
		if n, err := d.w.Write(p[:i]); err != nil {
			return done + n, err
		}
		if _, err := io.WriteString(d.w, `\u007f`); err != nil {
			return done + i, err
		}
		done += i + 1
		p = p[i+1:]
	}
	return done, nil
}
