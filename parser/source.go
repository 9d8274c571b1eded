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
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// readBufSize is how much of the input's start sniffWrapper sees; it is
// at most blockSize. (Variables only so that tests can shrink them.)
var readBufSize = 512 << 10

// blockSize is the size of each read: the input is handled in blocks of
// whole lines, and lines up to this long are never copied. An input keeps
// up to about a dozen blocks in flight (pipeDepth), so this is most of
// what reading costs in memory: with 1 MiB blocks a 128 MiB log and its
// kubelet log peaked at 43-49 MiB RSS, with 512 KiB at 31-41, 256 KiB at
// 29-36. The CPU was the same, except +4% with 256 KiB at 1 GiB.
var blockSize = 512 << 10

// pipeDepth is how many blocks may wait, read and analysed, for the scanner.
const pipeDepth = 4

// chunk is what a blockSource returns: either whole lines (data ends with
// "\n" except for the input's last, half-written line) or, when long is set,
// one physical line longer than blockSize (without its "\n" / "\r\n").
type chunk struct {
	data []byte
	buf  []byte  // backing buffer, returned to the pool when done
	win  *window // the mapping data lies in (mapReader), given back when done
	end  int64   // from a mapReader: a file offset at or past data's end
	// inFile: data is the bytes of a regular file from offset off, as
	// they lie there (a block read in place or with read(2); never a long
	// line, which is cut)
	inFile  bool
	off     int64
	long    bool
	tooLong bool // long: the line exceeds MaxLineBytes (data is cut)
	segs    []seg
	ahead   *ahead        // klog entries of the block decoded ahead (buildSpecs); nil when none
	ready   chan struct{} // closed when segs and specs are set
}

// blockSource cuts an input into blocks of whole lines for scanner.run:
// blockReader with read(2) into buffers, mapReader from mappings of a
// regular file (source_mmap.go).
type blockSource interface {
	// peek returns the start of the input without consuming it (up to
	// readBufSize bytes), for sniffWrapper.
	peek() []byte
	// produce sends the blocks to out, each analysed, until the input
	// ends or quit is closed.
	produce(out chan<- *chunk, quit <-chan struct{}, fast bool)
	// release gives back a block the scanner is done with: nothing may
	// point into its data afterwards.
	release(c *chunk)
	// apply runs f, which reads block c (nil: peek's bytes); false means
	// the input was cut under it and ends here.
	apply(c *chunk, f func()) bool
	// end returns the bytes read, the read error and whether the last
	// line had no newline.
	end() (n int64, err error, noNewline bool)
}

// blockReader reads the input in blocks of whole lines. A line longer than
// a block is consumed to its end but kept only up to max+1 bytes, so memory
// stays bounded whatever the input.
type blockReader struct {
	r         io.Reader
	max       int
	at        int64  // the file offset of r's first byte when r reads a regular file in order; -1 otherwise
	cur       []byte // buffer being filled; cur[:n] is read, not yet returned
	n         int
	done      bool  // EOF or read error seen
	noNewline bool  // the last line had no newline
	err       error // first read error other than EOF
	bytes     int64
	pool      *bufPool
	// yield: produce yields before each read (produceChunks), because r
	// reads the input's file with read(2) itself, not through a
	// decompressor or an archive
	yield bool
}

// bufPool recycles block buffers (the pipeline keeps a few in flight) of
// size bytes.
type bufPool struct {
	ch   chan []byte
	size int
}

// newBufPool returns a pool of up to n buffers for an input of sizeHint
// bytes (0: unknown): blockSize each, or less for a smaller input, so that
// a small file does not cost a whole block of fresh memory.
func newBufPool(n int, sizeHint int64) *bufPool {
	size := blockSize
	if sizeHint > 0 && sizeHint < int64(blockSize) {
		size = int(sizeHint) + 1 // the whole file in one read, its end seen
	}
	return &bufPool{ch: make(chan []byte, n), size: size}
}

func (p *bufPool) get() []byte {
	select {
	case b := <-p.ch:
		return b
	default:
		return make([]byte, p.size)
	}
}

func (p *bufPool) put(b []byte) {
	if cap(b) != p.size {
		return
	}
	select {
	case p.ch <- b[:p.size]:
	default:
	}
}

func newBlockReader(r io.Reader, max int, pool *bufPool) *blockReader {
	return &blockReader{r: r, max: max, pool: pool, at: -1}
}

// block is the chunk of cur's first k bytes (the file's bytes from its
// offset, when br reads a file).
func (br *blockReader) block(k int) *chunk {
	return &chunk{data: br.cur[:k], buf: br.cur, inFile: br.at >= 0, off: br.at + br.bytes - int64(br.n)}
}

// fill reads until the buffer is full or the input ends.
func (br *blockReader) fill() {
	if br.done {
		return
	}
	if br.cur == nil {
		br.cur = br.pool.get()
	}
	empty := 0
	for !br.done && br.n < len(br.cur) {
		m, err := br.r.Read(br.cur[br.n:])
		br.n += m
		br.bytes += int64(m)
		switch {
		case err == io.EOF:
			br.done = true
		case err != nil:
			br.done, br.err = true, err
		case m == 0:
			if empty++; empty >= 100 {
				br.done, br.err = true, io.ErrNoProgress
			}
		default:
			empty = 0
		}
	}
}

// peek returns the start of the input without consuming it (up to
// readBufSize; less at the end of the input).
func (br *blockReader) peek() []byte {
	br.fill()
	return br.cur[:min(br.n, readBufSize)]
}

// next returns the next chunk; ok is false at the end of the input.
func (br *blockReader) next() (c *chunk, ok bool) {
	br.fill()
	if br.n == 0 {
		return nil, false
	}
	if k := bytes.LastIndexByte(br.cur[:br.n], '\n'); k >= 0 {
		c = br.block(k + 1)
		rest := br.cur[k+1 : br.n]
		if br.done && len(rest) == 0 {
			br.cur, br.n = nil, 0
			return c, true
		}
		br.cur = br.pool.get()
		br.n = copy(br.cur, rest)
		return c, true
	}
	if br.done {
		// the last line, without newline
		br.noNewline = true
		c = br.block(br.n)
		br.cur, br.n = nil, 0
		return c, true
	}
	return br.longLine(), true
}

// produce reads the input into out, starting the analysis of each block
// on a goroutine of its own; it stops early when quit is closed.
func (br *blockReader) produce(out chan<- *chunk, quit <-chan struct{}, fast bool) {
	produceChunks(br.next, out, quit, br.max, fast, br.yield, br.release)
}

// produceChunks sends the chunks of next to out, each block analysed by
// one of GOMAXPROCS analysis goroutines, until next has no more or quit is
// closed; a chunk that cannot be sent goes to release. The analysis
// goroutines live as long as the input (a goroutine per block grew a new
// stack for each). With yield, it yields its core after sending each
// block: next is a read(2) of a file (see below).
func produceChunks(next func() (*chunk, bool), out chan<- *chunk, quit <-chan struct{}, max int, fast, yield bool, release func(*chunk)) {
	work := make(chan *chunk, pipeDepth)
	defer close(work)
	for range runtime.GOMAXPROCS(0) {
		go func() {
			debug.SetPanicOnFault(true) // a mapped block cut under it (source_mmap.go)
			for c := range work {
				c.analyze(max, fast)
			}
		}()
	}
	for {
		c, ok := next()
		if !ok {
			return
		}
		c.ready = make(chan struct{})
		if c.long {
			close(c.ready)
		} else {
			work <- c
		}
		select {
		case out <- c:
		case <-quit:
			<-c.ready
			release(c)
			return
		}
		// The sends above readied an analysis goroutine and the scanner
		// on this goroutine's P, and next is about to hold that P in
		// read(2): they would wait there for an idle core to be woken
		// (50-450 µs on a virtual machine, longer than a block's
		// analysis) or for sysmon to take the P back. Yielding first runs
		// them here now, and the read waits for a core instead, which
		// both keep busy (docs/performance.md, seventeenth sitting: 1 GiB,
		// 13-24 ms less wall). Not when next decompresses: zstd's
		// decoder has goroutines of its own, and yielding to them cost a
		// zstd input more than half again (128 MiB: 142 -> 222 ms).
		if yield {
			runtime.Gosched()
		}
	}
}

// analyze sets c.segs and c.ahead; should analyzeBlock or buildSpecs ever
// panic, the block is read line by line without specs instead.
func (c *chunk) analyze(max int, fast bool) {
	defer close(c.ready)
	defer func() {
		if recover() != nil {
			c.segs = []seg{{off: 0, end: len(c.data)}}
			c.ahead = nil // half built: not recycled
		}
	}()
	c.segs = analyzeBlock(c.data, max, fast, getSegs(len(c.data)))
	if fast {
		c.ahead = getAhead()
		c.ahead.build(c.data, c.segs, max)
	}
}

// segPool recycles the seg slices of applied blocks.
var segPool sync.Pool

// getSegs returns an empty seg slice for a block of n bytes: a recycled
// one, or a new one with room for a seg every 512 bytes, up to 1,024 (a
// whole block's worth, 280 KB). A small input's block needs a few: room
// for 1,024 for each of its two analysis goroutines was 560 KB of the
// 1.4 MB a 3 KB log's analysis allocated, pages of fresh memory.
func getSegs(n int) []seg {
	if p, ok := segPool.Get().(*[]seg); ok {
		return (*p)[:0]
	}
	return make([]seg, 0, min(1024, n/512+8))
}

// putSegs returns the segs of a block the scanner has applied.
func putSegs(s []seg) {
	if cap(s) > 0 {
		s = s[:0]
		segPool.Put(&s)
	}
}

// release returns c's buffer to the pool.
func (br *blockReader) release(c *chunk) { br.pool.put(c.buf) }

// end implements blockSource.
func (br *blockReader) end() (int64, error, bool) { return br.bytes, br.err, br.noNewline }

// apply implements blockSource: a block read is the scanner's own.
func (br *blockReader) apply(_ *chunk, f func()) bool {
	f()
	return true
}

// longLine consumes a line that does not fit in a block.
func (br *blockReader) longLine() *chunk {
	long := append([]byte(nil), br.cur[:min(br.n, br.max+1)]...)
	total := br.n
	br.n = 0
	newline := false
	for {
		br.fill()
		part := br.cur[:br.n]
		if k := bytes.IndexByte(part, '\n'); k >= 0 {
			part, newline = part[:k+1], true
		}
		total += len(part)
		if room := br.max + 1 - len(long); room > 0 {
			long = append(long, part[:min(len(part), room)]...)
		}
		if newline {
			br.n = copy(br.cur, br.cur[len(part):br.n])
			break
		}
		br.n = 0
		if br.done {
			break
		}
	}
	if !newline {
		br.noNewline = true
	}
	return longChunk(long, int64(total), newline, br.max)
}

// longChunk is the chunk of a line longer than a block: its first max+1
// bytes (long), total bytes consumed with its newline when it had one.
func longChunk(long []byte, total int64, newline bool, max int) *chunk {
	content := total
	if newline {
		content--
	}
	long = bytes.TrimSuffix(long, []byte("\n"))
	long = bytes.TrimSuffix(long, []byte("\r"))
	return &chunk{data: long, long: true, tooLong: content > int64(max)}
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
	// open reads an archive member (path is then ARCHIVE/MEMBER); nil for
	// files and stdin.
	open func() (io.ReadCloser, int64, error)
}

// expand turns one command-line path into sources: "-" is stdin, a directory
// is walked for log files (sorted, hidden entries skipped), anything else is
// a file. Entries the walk could not read or would not read come back as
// *WalkSkip errors beside the sources (walkDir).
func expand(p string) ([]source, []error, error) {
	if p == "-" {
		return []source{{path: "-", stdin: true}}, nil, nil
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, nil, cleanPathErr(err)
	}
	if !fi.IsDir() {
		if isArchive(p) {
			members, err := archiveMembers(p)
			return members, nil, err
		}
		return []source{{path: p}}, nil, nil
	}
	w := &walker{seen: map[string]bool{realPath(p): true}}
	if err := w.dir(p, true); err != nil {
		return nil, nil, cleanPathErr(err)
	}
	if len(w.out) == 0 && len(w.skips) == 0 {
		return nil, nil, fmt.Errorf("%s: directory holds no log files (*.log, *.log.N, *.gz, *.txt, current.log, journal dumps)", p)
	}
	return w.out, w.skips, nil
}

// WalkSkip is a directory entry a walk did not read. LooksLikeLog says it
// may have held a log (an unreadable subdirectory, a log-named FIFO or
// dangling link): that is an input that could not be read (exit 3);
// otherwise it is only said.
type WalkSkip struct {
	Path         string
	Reason       string
	LooksLikeLog bool
}

func (e *WalkSkip) Error() string { return e.Path + ": skipped: " + e.Reason }

// ReadFailures counts the errors of ParseAll that are inputs not read
// (exit 3): all but the walk's skips of entries that did not look like logs.
func ReadFailures(errs []error) int {
	n := 0
	for _, err := range errs {
		var ws *WalkSkip
		if !errors.As(err, &ws) || ws.LooksLikeLog {
			n++
		}
	}
	return n
}

// walker walks a directory: symlinks are followed to files and
// directories, hidden entries skipped. Each directory and file is taken
// once, by its path with symlinks resolved: a loop ends, and a log both
// linked (/var/log/containers) and walked (/var/log/pods) is read once.
type walker struct {
	seen  map[string]bool
	out   []source
	skips []error
}

// dir reads one directory; only the top one's failure is an error.
func (w *walker) dir(path string, top bool) error {
	ents, err := os.ReadDir(path)
	if err != nil {
		if top {
			return err
		}
		w.skip(path, "unreadable directory ("+errText(err)+")", true)
	}
	for _, d := range ents {
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(path, name)
		typ := d.Type()
		link := typ&fs.ModeSymlink != 0
		if link {
			fi, err := os.Stat(p)
			if err != nil {
				w.skip(p, "symlink that cannot be followed ("+errText(err)+")", isLogName(p))
				continue
			}
			typ = fi.Mode().Type()
		}
		real := p
		if link || typ.IsDir() {
			real = realPath(p)
		}
		switch {
		case typ.IsDir():
			if w.seen[real] {
				if link {
					w.skip(p, "symlink loop (directory already walked)", false)
				}
				continue
			}
			w.seen[real] = true
			w.dir(p, false)
		case typ.IsRegular() && isArchive(p):
			if !w.seen[real] {
				w.seen[real] = true
				members, err := archiveMembers(p)
				if err != nil {
					w.skips = append(w.skips, err)
				}
				w.out = append(w.out, members...)
			}
		case typ.IsRegular():
			if (isLogName(p) || isLogName(real)) && !w.seen[real] {
				w.seen[real] = true
				w.out = append(w.out, source{path: p})
			}
		default:
			w.skip(p, "not a regular file ("+typeName(typ)+"), not read", isLogName(p))
		}
	}
	return nil
}

// realPath is p absolute with symlinks resolved (p itself when that fails).
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	return p
}

func (w *walker) skip(path, reason string, log bool) {
	w.skips = append(w.skips, &WalkSkip{Path: path, Reason: reason, LooksLikeLog: log})
}

// errText is an error without the path it names (the skip names it).
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// LogFiles lists the files ParseAll reads for one command-line path: the
// path itself for a file, the log files of a directory walked as ParseAll
// walks it ("-" is stdin).
func LogFiles(p string) ([]string, error) {
	srcs, _, err := expand(p)
	out := make([]string, len(srcs))
	for i, s := range srcs {
		out[i] = s.path
	}
	return out, err
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
	base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst"), ".xz")
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
	case strings.HasSuffix(name, ".gz"), strings.HasSuffix(name, ".zst"), strings.HasSuffix(name, ".xz"):
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

// knownSize lets a regular file's size (at open) guide reading it: reserve
// sizes its event array from it, and a file that ends short of it was cut
// while read. Tests turn it off to read files as streams of unknown size.
var knownSize = true

// parseSource opens and parses one source. Only an open failure is an error;
// everything else becomes a Problem of the input.
func parseSource(src source, opt Options, index int) (*inputState, error) {
	st := newInputState(src.path, index)
	st.maxEvents = opt.maxEvents()
	st.run, st.runIndex = opt.run, opt.runIndex
	if s, ok := opt.streamInput(src.path); ok {
		st.applyStream(s)
		opt = opt.forStream(s)
	}
	var r io.Reader
	if src.open != nil {
		rc, size, err := src.open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		if knownSize {
			st.sizeHint = size
		}
		r = rc
	} else if src.stdin {
		r = opt.Stdin
		if r == nil {
			r = os.Stdin
		}
	} else {
		f, err := os.Open(src.path)
		if err != nil {
			return nil, cleanPathErr(err)
		}
		// a file the events' texts refer to stays open (textstore.Origin)
		defer func() {
			if !st.origin.Used() {
				st.origin.Release()
				f.Close()
			}
			st.origin = nil
		}()
		if fi, err := f.Stat(); err == nil {
			if fi.IsDir() {
				return nil, fmt.Errorf("%s: is a directory", src.path)
			}
			st.mtime = fi.ModTime()
			if fi.Mode().IsRegular() && knownSize {
				st.sizeHint = fi.Size() // dropped if it turns out compressed
			}
		}
		r = f
		st.file = f
	}
	if opt.Progress != nil {
		r = &countingReader{r: r, progress: opt.Progress}
	}
	st.read(r, opt)
	return st, nil
}

// gzipMagic and zstdMagic recognise the first bytes of compressed data.
func gzipMagic(head []byte) bool { return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b }
func zstdMagic(head []byte) bool { return bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}) }

// xzMagic recognises xz data (sosreport's default compression).
func xzMagic(head []byte) bool { return bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}) }

// isCompressed reports data that decompress decodes.
func isCompressed(head []byte) bool { return gzipMagic(head) || zstdMagic(head) || xzMagic(head) }

// sniffBufSize is the buffer decompress reads through: enough for the
// decompressors' small reads, and smaller than a block, so that reading
// plain text into a block goes straight from the file (bufio copies a read
// smaller than its buffer through the buffer: a second copy of every byte).
const sniffBufSize = 64 << 10

// zstdMaxWindow is the largest window the zstd CLI writes (--long=31).
const zstdMaxWindow = 1 << 31

// decompress sniffs gzip, zstd and xz magic numbers (whatever the file name).
// size is r's size when known (0 otherwise: unreadSize asks r): a smaller
// file gets a buffer of its size, not sniffBufSize (a must-gather's tens
// of thousands of one-line logs would each allocate 64 KiB), and the zstd
// and xz rewriters bound the windows by it.
func decompress(r io.Reader, size int64) (io.Reader, string, func(), error) {
	if size <= 0 {
		size = unreadSize(r)
	}
	buf := sniffBufSize
	if size > 0 && size < sniffBufSize {
		buf = int(size) + 1 // its end seen in one read
	}
	br := bufio.NewReaderSize(r, buf)
	head, _ := br.Peek(6)
	switch {
	case gzipMagic(head):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "", nil, fmt.Errorf("truncated or corrupt gzip header: %v", err)
		}
		return zr, "gzip", func() { zr.Close() }, nil
	case zstdMagic(head):
		// zstd --long=31 declares windows up to 2 GiB (the default limit is
		// 512 MiB); zstdWindow lowers them to what each frame can use
		zr, err := zstd.NewReader(newZstdWindow(br, size), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow))
		if err != nil {
			return nil, "", nil, fmt.Errorf("corrupt zstd data: %v", err)
		}
		return zr, "zstd", zr.Close, nil
	case xzMagic(head):
		// a block declares its dictionary (xz -9: 64 MiB, up to 4 GiB);
		// xzDict lowers it to what the block can use
		xr, err := xz.NewReader(newXZDict(br, size))
		if err != nil {
			return nil, "", nil, fmt.Errorf("truncated or corrupt xz header: %v", err)
		}
		return xr, "xz", nil, nil
	}
	return br, "", nil, nil
}

// unreadSize is what is left to read of r when r knows it (a bytes or
// strings reader, a regular file), or 0.
func unreadSize(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }:
		return int64(r.Len())
	case *os.File:
		fi, err := r.Stat()
		if err != nil || !fi.Mode().IsRegular() || !knownSize {
			return 0
		}
		if at, err := r.Seek(0, io.SeekCurrent); err == nil && at <= fi.Size() {
			return fi.Size() - at
		}
	}
	return 0
}

// InputFiles lists the files ParseAll reads for path: path itself, or the
// log files a directory walk finds (nothing for stdin or a path that cannot
// be read).
func InputFiles(path string) []string {
	if path == "-" {
		return nil
	}
	srcs, _, _ := expand(path)
	out := make([]string, 0, len(srcs))
	for _, s := range srcs {
		out = append(out, s.path)
	}
	return out
}
