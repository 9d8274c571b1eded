package parser

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// entryKind is the payload format of an entry.
type entryKind uint8

const (
	entNone  entryKind = iota
	entKlog            // klog/glog text header + message, continuation lines attached
	entJSON            // one --logging-format=json object
	entRow             // describe / get-events row(s), wrapped continuation lines attached
	entOther           // logrus "time=… level=… msg=…" or other text carried by a dated wrapper
)

// Input.Format values, counted per entry.
const (
	fmtKlog = iota
	fmtJSON
	fmtDescribe
	fmtGetEvents
	fmtText
	numFormats
)

var formatNames = [numFormats]string{fmtKlog: "klog-text", fmtJSON: "klog-json", fmtDescribe: "describe", fmtGetEvents: "get-events", fmtText: "text"}

var entryFormat = [...]int{entKlog: fmtKlog, entJSON: fmtJSON, entRow: fmtDescribe, entOther: fmtText}

// entry is the log entry being assembled: its first physical line and the
// header-less lines that follow it.
type entry struct {
	kind     entryKind
	line     int // first physical line
	nlines   int
	buf      []byte // payload text, lines joined with "\n"
	full     bool   // buf reached maxEntryBytes; later lines are counted only
	relevant bool
	w        wall
	yoff     int
	hasWall  bool
	badTime  bool
	wk       wrapKind
	wts      []byte // wrapper timestamp text (copied)
	abs      time.Time
	rows     []tableRowParse
	spec     *spec // klogEmit's result computed ahead for this entry, if any
}

// scanner reads one input: lines → wrappers → entries → records → events.
// It is pull-style and single-goroutine; run is the only loop.
type scanner struct {
	st      *inputState
	opt     Options
	max     int
	unw     unwrapper
	forceJS bool
	ent     entry
	table   tableState
	// described is the object of the `kubectl describe pod` output being
	// read (from its Name:, Namespace: and Node: lines).
	described describedPod
	prevMon   int
	yoff      int
	entries   int // entries opened, for sampling wrapper evidence
	nbsp      []byte
	comp      string // compression of the input, for messages

	// the specs of the block being applied (sorted by off), the next one
	// that may match, and the block offset of the current physical line
	// (-1 when it is not in that block)
	specs   []spec
	specAt  int
	lineOff int

	// CRI "P" / docker partial records waiting for their final part
	partial      []byte
	partialLines int
	partialStart int
	partialU     unwrapped
}

func newScanner(st *inputState, opt Options) *scanner {
	sc := &scanner{st: st, opt: opt, max: opt.MaxLineBytes, lineOff: -1}
	if sc.max <= 0 {
		sc.max = DefaultMaxLineBytes
	}
	switch f := opt.Format; f {
	case "", "auto", "describe", "get-events":
	case "klog":
		sc.unw.forced = true
	case "json":
		sc.unw.forced, sc.forceJS = true, true
	default:
		found := false
		for k, n := range wrapNames {
			if n == f {
				sc.unw.prefer, sc.unw.forced, found = wrapKind(k), true, true
			}
		}
		if !found {
			st.problem(0, "unknown input format %q, detecting it instead", f)
		}
	}
	return sc
}

// run reads r to the end, block by block. A reader goroutine cuts the input
// into blocks of whole lines and has each analysed (analyzeBlock: token,
// NUL and header search) by one of GOMAXPROCS analysis goroutines, so that
// the search uses every core; the same goroutine decodes ahead the relevant
// klog entries
// that lie inside the block (buildSpecs), so classification also runs on
// every core. run applies the blocks in input order, one at a time, so the
// scanner itself stays single-goroutine; it uses an entry's spec only when
// the texts are identical (emitKlog).
func (sc *scanner) run(r io.Reader) {
	st := sc.st
	br := newBlockReader(r, sc.max, newBufPool(2*pipeDepth+4, st.sizeHint))
	if !sc.unw.forced {
		sc.unw.prefer = sniffWrapper(br.peek())
	}
	fast := !sc.unw.forced && !sc.opt.noPrefilter
	chunks := make(chan *chunk, pipeDepth)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(chunks)
		br.produce(chunks, quit, fast)
	}()
	// A block goes back to its source one block late: its last entry is
	// only closed (and compared with its spec, which points into the
	// block) when the next block's first line arrives.
	var held *chunk
	// release gives a block back to its source and its decoded-ahead
	// results to the pool. An entry still open (its lines ran through the
	// whole next block) cannot be its spec's any more: let the spec go.
	release := func(c *chunk) {
		if c.ahead.holds(sc.ent.spec) {
			sc.ent.spec = nil
		}
		putAhead(c.ahead)
		c.ahead = nil
		br.release(c)
	}
	stop := func() {
		if quit != nil {
			close(quit)
			for c := range chunks {
				// analysed blocks the scanner will not apply
				<-c.ready
				release(c)
			}
			wg.Wait() // the reader no longer touches the input
			quit = nil
		}
		if held != nil {
			release(held)
			held = nil
		}
	}
	defer stop() // a panic below: let the reader go before the input is closed
	for c := range chunks {
		<-c.ready
		if c.long {
			sc.physical(c.data, c.tooLong)
			continue
		}
		sc.specs, sc.specAt = nil, 0
		if c.ahead != nil {
			sc.specs = c.ahead.specs
		}
		sc.block(c.data, c.segs)
		st.seen += int64(len(c.data))
		putSegs(c.segs)
		sc.specs, sc.lineOff = nil, -1
		if held != nil {
			release(held)
		}
		held = c
	}
	sc.flushPartial()
	sc.close()
	stop()
	n, err, noNewline := br.end()
	st.in.Bytes = n
	if err != nil {
		st.in.Truncated = true
		st.problem(0, "%s after %d lines; the lines read are kept", describeReadErr(err, sc.comp), st.in.Lines)
	} else if st.sizeHint > 0 && n < st.sizeHint {
		// cut shorter while open (copytruncate): the rest is gone
		st.in.Truncated = true
		st.problem(0, "the file shrank while it was read (truncated or rotated?): %d of its %d bytes read; the lines read are kept", n, st.sizeHint)
	}
	if noNewline && st.in.Lines > 0 {
		st.problem(st.in.Lines, "last line has no newline (half-written?); parsed as is")
	}
	if st.in.Lines == 0 && err == nil {
		st.problem(0, "empty input")
	}
}

// block handles one block of whole lines cut into segs by analyzeBlock.
func (sc *scanner) block(data []byte, segs []seg) {
	for i := range segs {
		g := &segs[i]
		// a wrapped run must not hold entries that gather wrapper clock
		// evidence (close: the first evidenceEntries entries)
		if g.n > 0 && sc.partialLines == 0 && (g.wk == wrapNone || sc.entries >= evidenceEntries) {
			if g.json {
				sc.jsonRun(g)
			} else {
				sc.plainRun(g)
			}
			continue
		}
		sc.lines(data[g.off:g.end], g.off)
	}
}

// plainRun accounts for a run of plain lines exactly as physical would, one
// line at a time: each closes the open entry and opens an irrelevant klog
// entry that the next one closes. For journald and CRI lines (plainWrapped)
// it also does what physical does with the wrapper: the wrapper vote, the
// journald host (the first line's, when none is known yet) and process
// count (one process per run, so the cap on distinct names is decided by
// the first line), and the unwrapper's preference. The wrapper clock is
// only compared with the klog clock for relevant entries and the first
// evidenceEntries ones, which block leaves to physical.
func (sc *scanner) plainRun(g *seg) {
	st := sc.st
	sc.close()
	st.in.Lines += g.n
	st.wrapVotes[g.wk] += g.n
	switch g.wk {
	case wrapJournald:
		if st.host == "" {
			st.host = string(g.host)
		}
		if len(st.procs) < 64 || st.procs[string(g.proc)] > 0 {
			st.procs[string(g.proc)] += g.n
		}
		sc.unw.prefer = wrapJournald
	case wrapCRI:
		// unwrap tries the preferred wrapper first; kubectl --timestamps
		// shares the CRI decoder
		if p := sc.unw.prefer; p != wrapCRI && p != wrapKubectlTS {
			sc.unw.prefer = wrapCRI
		}
	}
	st.formatVotes[fmtKlog] += g.n
	st.in.Irrelevant += g.n
	sc.entries += g.n
	sc.trackWall(g.w0)
	if g.n > 1 {
		sc.trackWall(g.wL)
	}
}

// jsonRun accounts for a run of plain JSON lines exactly as physical would,
// one line at a time: each closes the open entry, opens an irrelevant JSON
// entry, tracks its "ts" (trackAbs: only the range counts, which
// analyzeBlock computed) and closes it.
func (sc *scanner) jsonRun(g *seg) {
	st := sc.st
	sc.close()
	st.in.Lines += g.n
	st.wrapVotes[wrapNone] += g.n
	st.formatVotes[fmtJSON] += g.n
	st.in.Irrelevant += g.n
	sc.entries += g.n
	st.trackAbs(g.minAbs)
	st.trackAbs(g.maxAbs)
	if g.hasNS {
		st.trackAbs(time.Unix(0, g.minNS).UTC())
		st.trackAbs(time.Unix(0, g.maxNS).UTC())
	}
}

// wallAt is the clock of the plain line at data[off:]. plainKlogWall reads
// the header up to the first digit of the thread id, which a plain line
// holds, so the line's end need not be found: the bytes after it are never
// read.
func wallAt(data []byte, off int) wall {
	w, _ := plainKlogWall(data[off:])
	return w
}

// lines hands each physical line of data, at offset off of its block, to
// physical.
func (sc *scanner) lines(data []byte, off int) {
	for len(data) > 0 {
		line := data
		n := len(data)
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
			n = i + 1
		} else {
			data = nil
		}
		tooLong := len(line) > sc.max
		line = bytes.TrimSuffix(line, []byte("\r"))
		sc.lineOff = off
		sc.physical(line, tooLong)
		off += n
	}
}

// leadingNULs counts the NUL bytes at the start of line.
func leadingNULs(line []byte) int {
	n := 0
	for n < len(line) && line[n] == 0 {
		n++
	}
	return n
}

// skip counts one physical line as skipped for reason.
func (sc *scanner) skip(reason string) {
	sc.st.in.Skipped[reason]++
}

// physical handles one physical line.
func (sc *scanner) physical(line []byte, tooLong bool) {
	st := sc.st
	st.in.Lines++
	n := st.in.Lines
	if tooLong {
		sc.close()
		sc.skip(SkipTooLong)
		st.problem(n, "line longer than %d bytes skipped", sc.max)
		return
	}
	if pad := leadingNULs(line); pad > 0 && pad < len(line) && bytes.IndexByte(line[pad:], 0) < 0 {
		// Crash padding: a node that lost power leaves a run of NUL bytes
		// (allocated, never written) right before the first line the
		// restarted process wrote. The line itself is good.
		st.problem(n, "%d NUL bytes of padding (crash?) before the line skipped; the line is parsed", pad)
		line = line[pad:]
	}
	if bytes.IndexByte(line, 0) >= 0 {
		sc.close()
		if st.in.Skipped[SkipBinary] == 0 {
			st.problem(n, "binary data (NUL bytes) skipped")
		}
		sc.skip(SkipBinary)
		return
	}
	if len(line) == 0 {
		if sc.partialLines > 0 {
			sc.flushPartial()
		}
		sc.close()
		sc.skip(SkipBlank)
		return
	}
	switch line[0] {
	case '#':
		sc.close()
		sc.skip(SkipComment)
		return
	case '[', '$':
		if isPrompt(line) {
			sc.close()
			sc.skip(SkipPrompt)
			return
		}
	case '`':
		if bytes.HasPrefix(line, []byte("```")) {
			sc.close()
			sc.skip(SkipMarkup)
			return
		}
	case '-':
		if bytes.HasPrefix(line, []byte("-- ")) && bytes.HasSuffix(bytes.TrimSpace(line), []byte("--")) {
			sc.close()
			sc.skip(SkipMarkup)
			return
		}
	}
	if line[0] != 'I' && line[0] != 'E' && line[0] != 'W' && line[0] != ' ' && isPromptLoose(line) {
		sc.close()
		sc.skip(SkipPrompt)
		return
	}
	if bytes.IndexByte(line, 0xc2) >= 0 {
		line = sc.normalizeNBSP(line)
	}
	u := sc.unw.unwrap(line)
	if u.broken {
		sc.flushPartial()
		sc.close()
		sc.skip(SkipMalformed)
		st.problem(n, "malformed %s record skipped", wrapNames[u.kind])
		return
	}
	sc.st.wrapVotes[u.kind]++
	if u.grep {
		sc.st.grepVotes++
	}
	if u.host != nil && st.host == "" {
		st.host = string(u.host)
	}
	if u.proc != nil {
		if len(st.procs) < 64 || st.procs[string(u.proc)] > 0 {
			st.procs[string(u.proc)]++
		}
	}
	if u.partial {
		if sc.partialLines == 0 {
			sc.partialStart = n
			sc.partialU = u
			sc.partialU.ts = append([]byte(nil), u.ts...)
			sc.partial = sc.partial[:0]
		}
		if len(sc.partial)+len(u.payload) <= sc.max {
			sc.partial = append(sc.partial, u.payload...)
		}
		sc.partialLines++
		return
	}
	if sc.partialLines > 0 {
		if len(sc.partial)+len(u.payload) <= sc.max {
			sc.partial = append(sc.partial, u.payload...)
		}
		start, cnt := sc.partialStart, sc.partialLines+1
		pu := sc.partialU
		pu.partial = false
		sc.partialLines = 0
		sc.payload(sc.partial, pu, start, cnt)
		return
	}
	sc.payload(u.payload, u, n, 1)
}

// normalizeNBSP replaces no-break spaces (U+00A0, pasted from web pages
// into the pid padding and between table columns) by one blank each.
func (sc *scanner) normalizeNBSP(line []byte) []byte {
	if !bytes.Contains(line, []byte("\u00a0")) {
		return line
	}
	sc.nbsp = sc.nbsp[:0]
	for i := 0; i < len(line); i++ {
		if line[i] == 0xc2 && i+1 < len(line) && line[i+1] == 0xa0 {
			sc.nbsp = append(sc.nbsp, ' ')
			i++
			continue
		}
		sc.nbsp = append(sc.nbsp, line[i])
	}
	return sc.nbsp
}

// flushPartial ends a run of partial records that never got its final part.
func (sc *scanner) flushPartial() {
	if sc.partialLines == 0 {
		return
	}
	start, cnt := sc.partialStart, sc.partialLines
	sc.partialLines = 0
	sc.payload(sc.partial, sc.partialU, start, cnt)
}

// isPrompt recognises shell prompt lines such as
// "[root@VM_128_5_centos ~]# journalctl -r …" and "$ kubectl describe …".
func isPrompt(line []byte) bool {
	if line[0] == '$' {
		return len(line) > 2 && line[1] == ' '
	}
	end := bytes.IndexByte(line[:min(len(line), 128)], ']')
	if end < 0 || end+2 > len(line) {
		return false
	}
	if c := line[end+1]; c != '#' && c != '$' {
		return false
	}
	return bytes.IndexByte(line[1:end], '@') >= 0 || bytes.IndexByte(line[1:end], ' ') >= 0
}

// isPromptLoose recognises "user@host:~/dir$ cmd" prompts.
func isPromptLoose(line []byte) bool {
	if c := line[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_') {
		return false
	}
	at := bytes.IndexByte(line[:min(len(line), 64)], '@')
	if at <= 0 {
		return false
	}
	for _, sep := range [][]byte{[]byte("$ "), []byte("# ")} {
		if i := bytes.Index(line[:min(len(line), 128)], sep); i > at {
			if c := bytes.IndexByte(line[at:i], ':'); c >= 0 && bytes.IndexByte(line[:i], ' ') < 0 {
				return true
			}
		}
	}
	return false
}

// payload handles the content of one logical line (wrappers removed, partial
// records joined) that covers nlines physical lines from line.
func (sc *scanner) payload(p []byte, u unwrapped, line, nlines int) {
	st := sc.st
	if h, ok := parseKlogHeader(p); ok {
		sc.close()
		sc.open(entKlog, p, u, line, nlines)
		if h.badTime {
			sc.ent.badTime = true
			st.problem(line, "invalid timestamp %q; entry kept without time", p[1:min(len(p), 15)])
		} else {
			sc.ent.w, sc.ent.hasWall = h.w, true
			sc.ent.yoff = sc.trackWall(h.w)
		}
		return
	}
	if (sc.forceJS && len(p) > 0 && p[0] == '{') || looksJSONLog(p) {
		sc.close()
		sc.open(entJSON, p, u, line, nlines)
		if t, ok := jsonTS(p); ok {
			sc.ent.abs = t
			st.trackAbs(t)
		}
		sc.close()
		return
	}
	if sc.table.layout == tableNone || sc.ent.kind != entRow {
		// header lines and rows are recognised at any time
	}
	if isTableHeader(p, &sc.table) {
		sc.close()
		st.in.Irrelevant += nlines
		return
	}
	if rows := sc.tableRows(p); rows != nil {
		sc.close()
		sc.open(entRow, p, u, line, nlines)
		sc.ent.rows = rows
		return
	}
	if bytes.HasPrefix(p, []byte(`time="`)) {
		sc.close()
		sc.open(entOther, p, u, line, nlines)
		if e := bytes.IndexByte(p[6:], '"'); e > 0 {
			if t, err := time.Parse(time.RFC3339Nano, string(p[6:6+e])); err == nil {
				sc.ent.abs = t
			}
		}
		return
	}
	if sc.ent.kind == entNone || sc.ent.kind == entRow {
		if key, val, ok := describeField(p); ok {
			sc.close() // the rows above belong to the previous object
			sc.described.set(key, val)
			st.in.Irrelevant += nlines
			return
		}
	}
	if sc.ent.kind != entNone && sc.ent.kind != entJSON {
		sc.cont(p, nlines)
		return
	}
	// stray text: a line of prose, an unknown format. When a dated wrapper
	// carried it, it is an entry of its own (other components' output).
	if u.kind != wrapNone && u.ts != nil {
		sc.open(entOther, p, u, line, nlines)
		return
	}
	st.in.Irrelevant += nlines
}

// describedPod is the pod a `kubectl describe pod` header names.
type describedPod struct {
	name, ns string
	pod      string // "ns/name" once the Node: line confirms a pod
	node     string
}

// describeField reads a Name:, Namespace: or Node: line of `kubectl
// describe pod` output (at column 0).
func describeField(p []byte) (key, val string, ok bool) {
	k, v, found := bytes.Cut(p, []byte(":"))
	if !found {
		return "", "", false
	}
	switch key = string(k); key {
	case "Name", "Namespace", "Node":
		return key, string(bytes.TrimSpace(v)), true
	}
	return "", "", false
}

// set records one header field. A new Name: starts a new object; only an
// object with a Node: line (a pod) names the rows' pod and node.
func (d *describedPod) set(key, val string) {
	switch key {
	case "Name":
		*d = describedPod{name: val}
	case "Namespace":
		d.ns = val
	case "Node":
		if d.name == "" || val == "" || val == "<none>" {
			return
		}
		node, _, _ := strings.Cut(val, "/") // "10.0.3.27/10.0.3.27": node name / node IP
		d.node = node
		d.pod = d.name
		if d.ns != "" {
			d.pod = d.ns + "/" + d.name
		}
	}
}

// tableRows decodes p as one or more table rows of the current (or an
// implied describe) layout.
func (sc *scanner) tableRows(p []byte) []tableRowParse {
	switch sc.table.layout {
	case tableOld:
		if isOldRowStart(p) {
			if r, ok := parseOldRow(p); ok {
				return []tableRowParse{r}
			}
		}
		return nil
	case tableGetEvents:
		if len(p) > 0 && p[0] != ' ' && p[0] != '\t' {
			if r, ok := parseGetEventsRow(p, &sc.table); ok {
				return []tableRowParse{r}
			}
		}
		return nil
	}
	// describe rows, also without a header (pasted rows, real-logs/008)
	t := bytes.TrimLeft(p, " ")
	if !bytes.HasPrefix(t, []byte("Normal")) && !bytes.HasPrefix(t, []byte("Warning")) {
		return nil
	}
	return parseDescribeRows(p)
}

// open starts a new entry with its first logical line.
func (sc *scanner) open(k entryKind, p []byte, u unwrapped, line, nlines int) {
	e := &sc.ent
	e.kind, e.line, e.nlines = k, line, nlines
	e.buf = append(e.buf[:0], p[:min(len(p), maxEntryBytes)]...)
	e.full = len(p) > maxEntryBytes
	e.w, e.yoff, e.hasWall, e.badTime = wall{}, sc.yoff, false, false
	e.wk = u.kind
	e.wts = append(e.wts[:0], u.ts...)
	e.abs = time.Time{}
	e.rows = nil
	e.spec = nil
	if (k == entKlog || k == entJSON) && sc.lineOff >= 0 {
		for sc.specAt < len(sc.specs) && sc.specs[sc.specAt].off < sc.lineOff {
			sc.specAt++
		}
		if sc.specAt < len(sc.specs) && sc.specs[sc.specAt].off == sc.lineOff && sc.specs[sc.specAt].json == (k == entJSON) {
			e.spec = &sc.specs[sc.specAt]
			sc.specAt++ // used at most once
		}
	}
	switch s := e.spec; {
	case sc.opt.noPrefilter:
		e.relevant = true
	case s != nil && len(p) == s.len0 && bytes.Equal(p, s.buf[:s.len0]):
		e.relevant = s.rel0 // the spec's first line is this line
	default:
		e.relevant = mayMatter(p)
	}
	sc.entries++
}

// cont attaches a header-less line to the open entry.
func (sc *scanner) cont(p []byte, nlines int) {
	e := &sc.ent
	e.nlines += nlines
	if !e.relevant && mayMatter(p) {
		e.relevant = true
	}
	if e.full || len(e.buf)+len(p)+1 > maxEntryBytes {
		e.full = true
		return
	}
	e.buf = append(e.buf, '\n')
	e.buf = append(e.buf, p...)
	if e.kind == entRow && len(e.rows) > 0 {
		r := &e.rows[len(e.rows)-1]
		if !r.wrapped {
			r.more = append(r.more[:0], r.row.Message...)
			r.wrapped = true
		}
		if len(p) > 0 && p[0] != ' ' && p[0] != '\t' {
			// a terminal hard-wrapped the row inside a token (real-logs/019): glue
		} else {
			r.more = append(r.more, '\n')
		}
		r.more = append(r.more, bytes.TrimRight(p, " \t")...)
		r.more = bytes.TrimRight(r.more, " \t")
	}
}

// close finishes the open entry: counts it and, when relevant, turns it into
// records and events.
func (sc *scanner) close() {
	e := &sc.ent
	if e.kind == entNone {
		return
	}
	st := sc.st
	kind := e.kind
	e.kind = entNone
	if kind == entRow {
		if e.rows[0].layout == tableGetEvents {
			st.formatVotes[fmtGetEvents]++
		} else {
			st.formatVotes[fmtDescribe]++
		}
	} else {
		st.formatVotes[entryFormat[kind]]++
	}
	if e.relevant && (kind == entKlog || kind == entJSON) && e.plumbing(kind == entJSON) {
		e.relevant = false
	}
	// wrapper clock evidence from the first entries and from every relevant one
	if e.hasWall && len(e.wts) > 0 && (sc.entries <= evidenceEntries || e.relevant) {
		sc.wrapperEvidence(e)
	}
	if !e.relevant {
		st.in.Irrelevant += e.nlines
		return
	}
	st.in.Relevant++
	produced := 0
	switch kind {
	case entRow:
		for i := range e.rows {
			if sc.emitRow(e, &e.rows[i]) {
				produced++
			}
		}
	case entKlog:
		if sc.emitKlog(e) {
			produced++
		}
	case entJSON:
		if sc.emitJSON(e) {
			produced++
		}
	default:
		if sc.emit(e, kind) {
			produced++
		}
	}
	if produced > 0 {
		st.in.EventLines += e.nlines
	} else {
		st.in.Irrelevant += e.nlines
	}
}

// evidenceEntries is how many entries from the start of an input compare
// their wrapper clock with the klog clock even when irrelevant.
const evidenceEntries = 16

// wrapperEvidence compares the klog header clock with the wrapper's clock.
func (sc *scanner) wrapperEvidence(e *entry) {
	wt, ok := parseWrapTime(e.wk, e.wts)
	if !ok {
		return
	}
	switch {
	case !wt.abs.IsZero():
		if y, off, ok := matchWall(e.w, wt.abs); ok {
			sc.st.evid = append(sc.st.evid, evidence{from: FromWrapper, year: y - e.yoff, off: off, hasOff: true, hasYear: true})
		}
	case wt.year != 0:
		sc.st.evid = append(sc.st.evid, evidence{from: FromWrapper, year: wt.year - e.yoff, hasYear: true})
	}
}

// classifySafe runs classify, turning a panic into a problem.
func (sc *scanner) classifySafe(rec *record, line int) (Event, bool) {
	ev, ok, panicV := classifyGuarded(rec)
	if panicV != nil {
		sc.st.problem(line, "internal error classifying entry: %v", panicV)
	}
	return ev, ok
}

// classifyGuarded runs classify; a panic comes back as panicV (and no event)
// so that one bad line cannot stop the input.
func classifyGuarded(rec *record) (ev Event, ok bool, panicV any) {
	defer func() {
		if p := recover(); p != nil {
			ev, ok, panicV = Event{}, false, p
		}
	}()
	ev, ok = classifyFn(*rec)
	return ev, ok, nil
}

// emitResult is everything emit derives from the text of one entry alone
// (decoding, classification, text cleanup, the retry deadline). It is a pure
// function of the entry's bytes (klogEmit, jsonEmit), so the analysis
// goroutines compute it ahead for entries that lie within their block
// (spec); the scanner uses it when the entry it closes has exactly those
// bytes.
type emitResult struct {
	ev Event
	ok bool
	// plumbing: the entry is informer plumbing (fromInformerPlumbing; klog
	// only), found while decoding it
	plumbing bool
	err      error // the entry could not be decoded (JSON)
	panicV   any   // classify panicked with this value
	text     string
	until    time.Time // retry deadline, for year/zone evidence (klog)
	backoff  time.Duration
	okU      bool
}

// worthKeeping reports whether a result computed ahead must be kept: an
// event, a decoding error or a panic (each needs the scanner's attention).
func (r *emitResult) worthKeeping() bool { return r.ok || r.err != nil || r.panicV != nil }

// klogEmit decodes and classifies the klog entry buf.
func klogEmit(buf []byte) (r emitResult) {
	var rec record
	// h.file is empty when the header is not one (parseKlogHeader sets it
	// last), so this is fromInformerPlumbing(buf)
	h, _ := parseKlogHeader(buf)
	if classifier.IsInformerPlumbing(string(h.file)) {
		r.plumbing = true
		return r // never an event (classifyMessage): not worth a copy
	}
	rec.Level, rec.PID = h.level, h.pid
	// the text, and the message as its tail when no byte was replaced
	if t := bytes.TrimRight(buf, "\n"); h.rest <= len(t) && utf8.Valid(t) {
		// Most entries classified are no event: classify a view of buf
		// and copy the text only for an event, moving its strings onto
		// the copy (rebase), so that nothing kept points into buf. The
		// header, file name included, lies within the view.
		view := unsafe.String(unsafe.SliceData(t), len(t))
		rec.File = unsafe.String(unsafe.SliceData(h.file), len(h.file))
		rec.Rest = view[h.rest:]
		r.ev, r.ok, r.panicV = classifyGuarded(&rec)
		switch {
		case r.ok:
			r.text = string(t)
			rebaseEvent(&r.ev, view, r.text)
		case r.panicV != nil:
			// the panic value may hold parts of the view: panic again
			// on a copy (rare)
			r.text = string(t)
			rec.File, rec.Rest = string(h.file), r.text[h.rest:]
			r.ev, r.ok, r.panicV = classifyGuarded(&rec)
		}
	} else {
		rec.File = string(h.file)
		r.text = sanitizeText(buf)
		rec.Rest = sanitizeText(buf[h.rest:])
		r.ev, r.ok, r.panicV = classifyGuarded(&rec)
	}
	if !r.ok {
		r.ev, r.text = Event{}, ""
		return r
	}
	if rec.Level != 0 {
		r.ev.Level = rec.Level
	}
	if r.ev.PID == 0 {
		r.ev.PID = rec.PID
	}
	if r.ev.Retry != nil && r.ev.Retry.Until != "" {
		r.until, r.okU = parseRetryUntil(r.ev.Retry.Until)
		r.backoff = r.ev.Retry.Backoff
	}
	if !r.okU {
		r.until, r.backoff, r.okU = retryFromText(r.text)
	}
	return r
}

// rebaseEvent moves every string of ev that lies within view onto the
// same bytes of text, a copy of view, so that ev no longer refers to the
// memory behind view. Strings built elsewhere (constants, unquoted
// values) are left as they are. TestRebaseEventCoversEveryString checks
// that it knows every string field of Event.
func rebaseEvent(ev *Event, view, text string) {
	for _, p := range [...]*string{&ev.Volume, &ev.PV, &ev.Handle, &ev.Attachment, &ev.Node, &ev.Pod, &ev.PodUID,
		&ev.Error, &ev.Code, &ev.Component, &ev.Origin, &ev.Detail, &ev.Reason, &ev.Source.Path, &ev.Text} {
		*p = rebaseString(*p, view, text)
	}
	ev.Kind = Kind(rebaseString(string(ev.Kind), view, text))
	if ev.Retry != nil {
		ev.Retry.Until = rebaseString(ev.Retry.Until, view, text)
	}
}

// rebaseString returns s moved from view onto text when it lies within
// view, s itself otherwise.
func rebaseString(s, view, text string) string {
	if len(s) == 0 {
		return s
	}
	off := uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.StringData(view)))
	if off >= uintptr(len(view)) || off+uintptr(len(s)) > uintptr(len(view)) {
		return s
	}
	return text[off : off+uintptr(len(s))]
}

// spec is an entry found complete inside one block by an analysis
// goroutine, with its result computed ahead.
type spec struct {
	off  int    // block offset of the entry's header line
	buf  []byte // the entry text as the scanner assembles it
	len0 int    // length of its header line (buf[:len0])
	rel0 bool   // whether the header line has a prefilter token
	json bool   // a JSON log line (one line, one entry) rather than klog
	// res is the result when it is worth keeping (worthKeeping); nil means
	// the entry is not an event. Most candidate entries are not, so they
	// carry no Event. It points into the block's ahead.results.
	res *emitResult
	// plumbing is fromPlumbing(json, buf), found ahead
	plumbing bool
}

// ahead is what the analysis of a block decoded ahead of the scanner: its
// specs and, in results, the results worth keeping they point at. Both
// arrays are recycled (aheadPool) once the scanner is done with the block,
// so a block's results cost no allocation of their own: an emitResult
// holds a whole Event, and most blocks have dozens.
type ahead struct {
	specs   []spec
	results []emitResult
}

// aheadPool recycles the ahead of applied blocks.
var aheadPool sync.Pool

func getAhead() *ahead {
	if a, ok := aheadPool.Get().(*ahead); ok {
		return a
	}
	return &ahead{}
}

// putAhead recycles a; nothing may point into it any more.
func putAhead(a *ahead) {
	if a == nil {
		return
	}
	clear(a.specs) // their texts alias the block
	clear(a.results)
	a.specs, a.results = a.specs[:0], a.results[:0]
	aheadPool.Put(a)
}

// holds reports whether s points into a's specs.
func (a *ahead) holds(s *spec) bool {
	return a != nil && s != nil && len(a.specs) > 0 &&
		uintptr(unsafe.Pointer(s)) >= uintptr(unsafe.Pointer(&a.specs[0])) &&
		uintptr(unsafe.Pointer(s)) <= uintptr(unsafe.Pointer(&a.specs[len(a.specs)-1]))
}

// decide decodes and classifies every spec (klogEmit, or jsonEmit for JSON
// log lines), keeping in a.results the results worth keeping. results has
// room for all of them before the first is taken, so the pointers to its
// elements stay valid.
func (a *ahead) decide() {
	if cap(a.results) < len(a.specs) {
		a.results = make([]emitResult, 0, len(a.specs)+len(a.specs)/4)
	}
	for i := range a.specs {
		s := &a.specs[i]
		emit := klogEmit
		if s.json {
			emit = jsonEmit
			s.plumbing = jsonFromInformerPlumbing(s.buf)
		}
		r := emit(s.buf)
		s.plumbing = s.plumbing || r.plumbing
		if r.worthKeeping() {
			a.results = append(a.results, r)
			s.res = &a.results[len(a.results)-1]
		}
	}
}

// ownSpec returns the entry's spec when it was built from exactly this
// entry's bytes (its results then stand for the entry's), else nil.
func (e *entry) ownSpec() *spec {
	if s := e.spec; s != nil && !e.full && bytes.Equal(s.buf, e.buf) {
		return s
	}
	return nil
}

// plumbing is fromPlumbing(json, e.buf): taken from the entry's own spec
// (its header is then not parsed again), else found now.
func (e *entry) plumbing(json bool) bool {
	if s := e.ownSpec(); s != nil {
		return s.plumbing
	}
	return fromPlumbing(json, e.buf)
}

// result is emit's common first step: the spec's result when the spec was
// built from exactly this entry's bytes, else emit run now. event is false
// when the entry is known not to be an event.
func (e *entry) result(emit func([]byte) emitResult) (r emitResult, event bool) {
	if s := e.ownSpec(); s != nil {
		if s.res == nil {
			return r, false // decoded ahead: not an event
		}
		return *s.res, true
	}
	return emit(e.buf), true
}

// failed reports a result that is no event, recording why when the scanner
// must say so (a decoding error, a panic).
func (sc *scanner) failed(r *emitResult, line int) bool {
	switch {
	case r.err != nil:
		sc.st.problem(line, "bad JSON log line: %v", r.err)
	case r.panicV != nil:
		sc.st.problem(line, "internal error classifying entry: %v", r.panicV)
	}
	return r.err != nil || r.panicV != nil || !r.ok
}

// jsonEmit decodes and classifies the JSON entry buf.
func jsonEmit(buf []byte) emitResult {
	if bytes.HasSuffix(buf, []byte("\n")) || !utf8.Valid(buf) {
		return jsonEmitIn(buf, "", false)
	}
	// Most lines classified are no event: decode a view of buf and copy
	// the line only for an event (as klogEmit does)
	if r := jsonEmitIn(buf, unsafe.String(unsafe.SliceData(buf), len(buf)), true); r.err == nil && r.panicV == nil {
		return r
	}
	// an error or a panic value may keep parts of the text: on a copy
	return jsonEmitIn(buf, string(buf), false)
}

// jsonEmitIn decodes and classifies the JSON line buf. text is buf as a
// string ("" when it needs sanitizing); the decoded strings are parts of
// it, and so is the event's text. When text is a view of buf (view), the
// event's text is a copy and the event's strings are moved onto it.
func jsonEmitIn(buf []byte, text string, view bool) (r emitResult) {
	var rec record
	if err := decodeJSONLogIn(buf, text, &rec); err != nil {
		r.err = err
		return r
	}
	r.ev, r.ok, r.panicV = classifyGuarded(&rec)
	if !r.ok {
		r.ev = Event{}
		return r
	}
	switch {
	case view:
		r.text = string(buf)
		rebaseEvent(&r.ev, text, r.text)
	case text == "":
		r.text = sanitizeText(buf)
	default:
		r.text = text
	}
	if r.ev.Level == 0 {
		r.ev.Level = rec.Level
	}
	if r.ev.PID == 0 {
		r.ev.PID = rec.PID
	}
	return r
}

// emitJSON is emit for a JSON entry: it uses the entry's spec when the
// spec's text is exactly the entry's.
func (sc *scanner) emitJSON(e *entry) bool {
	r, event := e.result(jsonEmit)
	if !event || sc.failed(&r, e.line) {
		return false
	}
	st := sc.st
	ev := r.ev
	sc.finishEvent(&ev, e, r.text)
	st.addEvent(&ev, evMeta{abs: instantOf(e.abs)})
	return true
}

// emitKlog is emit for a klog entry: it uses the entry's spec when the
// spec's text is exactly the entry's.
func (sc *scanner) emitKlog(e *entry) bool {
	r, event := e.result(klogEmit)
	if !event || sc.failed(&r, e.line) {
		return false
	}
	st := sc.st
	ev := r.ev
	var m evMeta
	if e.hasWall {
		m.w, m.yoff, m.hasWall = e.w, e.yoff, true
	}
	sc.finishEvent(&ev, e, r.text)
	// in-band year/zone evidence
	if e.hasWall && r.okU {
		if !plausibleYear(r.until.Year()) {
			st.problem(e.line, "implausible year %d in retry deadline ignored", r.until.Year())
		} else if y, off, ok := matchWall(e.w, r.until.Add(-r.backoff)); ok {
			st.evid = append(st.evid, evidence{from: FromRetry, year: y - e.yoff, off: off, hasOff: true, hasYear: true})
		}
	}
	st.addEvent(&ev, m)
	return true
}

// emit turns an other entry into at most one event.
func (sc *scanner) emit(e *entry, kind entryKind) bool {
	st := sc.st
	var rec record
	var m evMeta
	switch kind {
	case entOther:
		rec.Rest = sanitizeText(e.buf)
		if bytes.HasPrefix(e.buf, []byte(`time="`)) {
			rec.Level, rec.Msg = logrusFields(e.buf)
		}
		m.abs = instantOf(e.abs)
		if !m.abs.set {
			if wt, ok := parseWrapTime(e.wk, e.wts); ok {
				if !wt.abs.IsZero() {
					m.abs = instantOf(wt.abs)
				} else {
					m.w, m.yoff, m.hasWall = wt.w, e.yoff, true
				}
			}
		}
	}
	ev, ok := sc.classifySafe(&rec, e.line)
	if !ok {
		return false
	}
	text := sanitizeText(e.buf)
	if ev.Level == 0 {
		ev.Level = rec.Level
	}
	if ev.PID == 0 {
		ev.PID = rec.PID
	}
	sc.finishEvent(&ev, e, text)
	st.addEvent(&ev, m)
	return true
}

// emitRow turns one table row into an event.
func (sc *scanner) emitRow(e *entry, r *tableRowParse) bool {
	st := sc.st
	if !sc.opt.noPrefilter && len(e.rows) > 1 && !mayMatter([]byte(r.row.Message+" "+r.row.Reason)) {
		return false
	}
	row := r.row
	if r.wrapped {
		row.Message = strings.ToValidUTF8(string(r.more), "\uFFFD")
	}
	rec := record{Msg: row.Message, Table: &row}
	ev, ok := sc.classifySafe(&rec, e.line)
	if !ok {
		return false
	}
	text := sanitizeText(e.buf)
	if len(e.rows) > 1 {
		text = rowText(r)
	}
	sc.finishEvent(&ev, e, text)
	if ev.Count == 0 && row.Count > 1 {
		ev.Count = row.Count
	}
	if ev.Span == 0 {
		ev.Span = r.span
	}
	if ev.Node == "" {
		ev.Node = r.node
	}
	// `kubectl describe pod` names the pod and its node above the Events
	// table; the rows themselves carry neither.
	if d := sc.described; d.pod != "" {
		if ev.Pod == "" || ev.Pod == d.pod[strings.IndexByte(d.pod, '/')+1:] {
			ev.Pod = d.pod
		}
		if ev.Node == "" {
			ev.Node = d.node
		}
	}
	if ev.Origin == "" {
		ev.Origin = OriginDescribe
	}
	if ev.Component == "" {
		ev.Component = ComponentEvents
	}
	if ev.Reason == "" {
		ev.Reason = row.Reason
	}
	if ev.Level == 0 {
		switch row.Type {
		case "Warning":
			ev.Level = 'W'
		case "Normal":
			ev.Level = 'I'
		}
	}
	if ev.Pod == "" && strings.HasPrefix(r.object, "pod/") {
		ev.Pod = r.object[4:]
	}
	m := evMeta{}
	if r.ageOK {
		m.age, m.hasAge = r.age, true
		ev.Age = r.age
	}
	st.addEvent(&ev, m)
	return true
}

// rowText renders one of several rows collapsed on one physical line.
func rowText(r *tableRowParse) string {
	return fmt.Sprintf("%s  %s  %s  %s  %s", r.row.Type, r.row.Reason, r.ageText, r.row.From, r.row.Message)
}

// finishEvent fills the envelope fields of an event.
func (sc *scanner) finishEvent(ev *Event, e *entry, text string) {
	ev.Source = Source{Path: sc.st.in.Path, Line: e.line, Input: sc.st.index}
	ev.Text = text
}

// logrusFields reads level= and msg= of a logrus text line.
func logrusFields(p []byte) (level byte, msg string) {
	s := string(p)
	if i := strings.Index(s, " level="); i >= 0 {
		switch {
		case strings.HasPrefix(s[i+7:], "error"), strings.HasPrefix(s[i+7:], "fatal"):
			level = 'E'
		case strings.HasPrefix(s[i+7:], "warn"):
			level = 'W'
		default:
			level = 'I'
		}
	}
	if i := strings.Index(s, ` msg="`); i >= 0 {
		rest := s[i+5:]
		if j := closingQuote(rest); j > 0 {
			if u, err := unquoteLoose(rest[:j+1]); err == nil {
				msg = u
			}
		}
	}
	return level, msg
}

func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func unquoteLoose(s string) (string, error) {
	var u unwrapper
	b, _, ok := u.jsonString([]byte(s), 0)
	if !ok {
		return "", fmt.Errorf("bad quoted string")
	}
	return string(b), nil
}

// classifyFn is the message side's classifier; tests of the envelope swap in
// a fake to stay independent of it. It takes the record by value: a pointer
// passed to a function variable escapes, and every candidate entry's record
// would go to the heap.
var classifyFn = func(rec record) (Event, bool) { return classifier.Classify(&rec) }
