package envelope

import (
	"bufio"
	"bytes"
	"io"
)

// MaxLineBytes is the longest line a line-oriented shape reads; a longer
// line is skipped with a problem.
const MaxLineBytes = 64 << 20

// lineReader yields the physical lines of an input with their 1-based
// numbers, keeping Stats.Lines at the highest number returned.
type lineReader struct {
	br   *bufio.Reader
	d    *decoder
	n    int    // number of the last line returned
	buf  []byte // a long line assembled from several buffer fills
	err  error  // the read error that ended the input (not io.EOF)
	done bool
}

func newLineReader(d *decoder, br *bufio.Reader, firstLine int) *lineReader {
	return &lineReader{br: br, d: d, n: firstLine - 1}
}

// nextObject returns the next line that is not blank, trimmed, when it
// starts a JSON object; a line that does not is a problem (of lr's
// decoder) and skipped.
func (lr *lineReader) nextObject() (line []byte, ok bool) {
	for {
		if line, ok = lr.next(); !ok {
			return nil, false
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' {
			lr.d.problem(lr.n, "not a JSON object line (another format mixed in?): %q", clip(string(line)))
			continue
		}
		return line, true
	}
}

// next returns the next line without its "\n" (and "\r"); ok is false at
// the end of the input. The line is valid until the next call.
func (lr *lineReader) next() (line []byte, ok bool) {
	for !lr.done {
		b, err := lr.br.ReadSlice('\n')
		long := false
		if err == bufio.ErrBufferFull {
			lr.buf = append(lr.buf[:0], b...)
			for err == bufio.ErrBufferFull {
				b, err = lr.br.ReadSlice('\n')
				if len(lr.buf)+len(b) > MaxLineBytes {
					long = true
					lr.buf = lr.buf[:0]
				}
				if !long {
					lr.buf = append(lr.buf, b...)
				}
			}
			b = lr.buf
		}
		if err != nil {
			lr.done = true
			if err != io.EOF {
				lr.err = err
			}
			if len(b) == 0 {
				return nil, false
			}
		}
		lr.n++
		lr.d.st.Lines = max(lr.d.st.Lines, lr.n)
		if long {
			lr.d.problem(lr.n, "line longer than %d bytes skipped", MaxLineBytes)
			continue
		}
		b = bytes.TrimSuffix(b, []byte("\n"))
		b = bytes.TrimSuffix(b, []byte("\r"))
		return b, true
	}
	return nil, false
}
