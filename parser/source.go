package parser

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// readBufSize is the size of each read; lines up to this long are returned
// without copying.
const readBufSize = 1 << 20

// lineReader returns physical lines without their "\n" / "\r\n". A line
// longer than max is consumed to its end but returned cut to max bytes with
// tooLong set, so memory stays bounded whatever the input.
type lineReader struct {
	br        *bufio.Reader
	max       int
	long      []byte
	tooLong   bool
	eof       bool
	noNewline bool  // the last line had no newline
	err       error // first read error other than EOF
	bytes     int64
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, readBufSize), max: max}
}

// peek returns the start of the input without consuming it (up to the
// buffer size; less at the end of the input).
func (lr *lineReader) peek() []byte {
	b, _ := lr.br.Peek(readBufSize)
	return b
}

// next returns the next line; ok is false at the end of the input.
func (lr *lineReader) next() (line []byte, ok bool) {
	if lr.eof {
		return nil, false
	}
	line, err := lr.br.ReadSlice('\n')
	total := len(line)
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], line[:min(len(line), lr.max+1)]...)
		for err == bufio.ErrBufferFull {
			line, err = lr.br.ReadSlice('\n')
			total += len(line)
			if room := lr.max + 1 - len(lr.long); room > 0 {
				lr.long = append(lr.long, line[:min(len(line), room)]...)
			}
		}
		line = lr.long
	}
	lr.bytes += int64(total)
	content := total
	if err == nil {
		content-- // the newline does not count against the cap
	}
	lr.tooLong = content > lr.max
	switch {
	case err == nil:
	case err == io.EOF:
		lr.eof = true
		if len(line) == 0 {
			return nil, false
		}
		lr.noNewline = true
	default:
		lr.eof = true
		lr.err = err
		if len(line) == 0 {
			return nil, false
		}
		lr.noNewline = true
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, true
}

// describeReadErr names a read error in user terms; comp is the
// compression of the input ("gzip", "zstd" or "").
func describeReadErr(err error, comp string) string {
	if comp != "" {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return "truncated " + comp + " (unexpected EOF)"
		}
		return "truncated or corrupt " + comp + " (" + err.Error() + ")"
	}
	return "read error: " + err.Error()
}

// source is one input to read: a file or stdin.
type source struct {
	path  string // as given (or as found while walking a directory)
	stdin bool
}

// expand turns one command-line path into sources: "-" is stdin, a directory
// is walked for log files (sorted, hidden entries skipped), anything else is
// a file.
func expand(p string) ([]source, error) {
	if p == "-" {
		return []source{{path: "-", stdin: true}}, nil
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, cleanPathErr(err)
	}
	if !fi.IsDir() {
		return []source{{path: p}}, nil
	}
	var out []source
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == p {
				return err
			}
			return nil // unreadable subdirectory: skip it
		}
		name := d.Name()
		if path != p && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if isLogName(path) {
			out = append(out, source{path: path})
		}
		return nil
	})
	if err != nil {
		return nil, cleanPathErr(err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: directory holds no log files (*.log, *.log.N, *.gz, *.txt, current.log, journal dumps)", p)
	}
	return out, nil
}

// isLogName decides which files of a walked directory are logs: rotated and
// compressed logs (kubelet.log.1, kcm.log.2.gz, messages-20240101), must-gather
// current.log/previous.log, sosreport journal dumps (journalctl_--no-pager…)
// and *.txt/*.out captures. Manifests, certificates and archives are left out.
func isLogName(path string) bool {
	name := strings.ToLower(filepath.Base(path))
	for _, ext := range []string{".yaml", ".yml", ".json", ".pem", ".crt", ".key", ".tar", ".zip", ".tgz", ".png", ".jpg", ".html", ".md", ".go", ".sh", ".py"} {
		if strings.HasSuffix(name, ext) {
			return false
		}
	}
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst")
	// strip rotation suffixes: .1, -20240101
	for {
		ext := filepath.Ext(base)
		if ext == "" || strings.Trim(ext[1:], "0123456789") != "" {
			break
		}
		base = strings.TrimSuffix(base, ext)
	}
	if i := strings.LastIndexByte(base, '-'); i > 0 && len(base)-i > 6 && strings.Trim(base[i+1:], "0123456789") == "" {
		base = base[:i]
	}
	switch {
	case strings.HasSuffix(base, ".log"), strings.HasSuffix(base, ".txt"), strings.HasSuffix(base, ".out"):
		return true
	case strings.HasSuffix(name, ".gz"), strings.HasSuffix(name, ".zst"):
		return true
	}
	for _, k := range []string{"journal", "messages", "syslog", "kubelet", "kube-controller-manager", "events", "describe"} {
		if strings.Contains(base, k) && filepath.Ext(base) == "" {
			return true
		}
	}
	return false
}

// cleanPathErr keeps path errors to "open kcm.log: no such file or directory".
func cleanPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		op := pe.Op
		if op == "stat" || op == "lstat" {
			op = "open"
		}
		return &fs.PathError{Op: op, Path: pe.Path, Err: pe.Err}
	}
	return err
}

// countingReader reports consumed bytes to Options.Progress.
type countingReader struct {
	r        io.Reader
	progress func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 && c.progress != nil {
		c.progress(int64(n))
	}
	return n, err
}

// parseSource opens and parses one source. Only an open failure is an error;
// everything else becomes a Problem of the input.
func parseSource(src source, opt Options, index int) (*inputState, error) {
	st := newInputState(src.path, index)
	var r io.Reader
	if src.stdin {
		r = os.Stdin
	} else {
		f, err := os.Open(src.path)
		if err != nil {
			return nil, cleanPathErr(err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			if fi.IsDir() {
				return nil, fmt.Errorf("%s: is a directory", src.path)
			}
			st.mtime = fi.ModTime()
		}
		r = f
	}
	if opt.Progress != nil {
		r = &countingReader{r: r, progress: opt.Progress}
	}
	st.read(r, opt)
	return st, nil
}

// decompress sniffs gzip and zstd magic numbers (whatever the file name).
func decompress(r io.Reader) (io.Reader, string, func(), error) {
	br := bufio.NewReaderSize(r, readBufSize)
	head, _ := br.Peek(4)
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "", nil, fmt.Errorf("truncated or corrupt gzip header: %v", err)
		}
		return zr, "gzip", func() { zr.Close() }, nil
	case len(head) == 4 && slices.Equal(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, "", nil, fmt.Errorf("corrupt zstd data: %v", err)
		}
		return zr, "zstd", zr.Close, nil
	}
	return br, "", nil, nil
}
