package parser

import (
	"bytes"
	"io"
	"sync"
	"time"
)

// entryKind is the payload format of an entry.

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
	envText   bool   // the line is an envelope record's text (source_envelope.go)

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
		if !found && forcedEnvelope(f) == nil { // an export's envelope is read by records
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
	br := st.blocks(r, sc.max, sc.comp, sc.opt.Progress)
	if !sc.unw.forced {
		br.apply(nil, func() { sc.unw.prefer = sniffWrapper(br.peek()) })
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
		st.fileBlocks = [2]fileBlock{}
	}
	defer stop() // a panic below: let the reader go before the input is closed
	cut := false // the file was cut under its mapping (source_mmap.go)
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
		if st.origin != nil {
			st.fileBlocks = [2]fileBlock{st.fileBlocks[1], fileBlockOf(c)}
		}
		cut = !br.apply(c, func() { sc.block(c.data, c.segs) })
		st.seen += int64(len(c.data))
		putSegs(c.segs)
		sc.specs, sc.lineOff = nil, -1
		if held != nil {
			release(held)
		}
		held = c
		if cut {
			// the rest is gone, as when read(2) meets the new end; the
			// open entry's spec may point there
			sc.ent.spec = nil
			break
		}
	}
	sc.flushPartial()
	sc.close()
	if cut {
		// a line the fault stopped after physical counted it (a cut
		// racing the scanner) was not read
		st.in.Lines -= st.in.Unaccounted()
	}
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
		if isFence(line) {
			sc.close()
			sc.skip(SkipMarkup)
			return
		}
	case 0xe2:
		if isBoxEdge(line) {
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
	if sc.ent.kind == entNone || sc.ent.kind == entRow && sc.ent.rows[0].layout == tableBare {
		// an event message without its table (payload_eventmsg.go)
		if r, ok := bareEventRow(p); ok {
			sc.close()
			sc.open(entRow, p, u, line, nlines)
			sc.ent.rows = []tableRowParse{r}
			return
		}
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
		sc.cont(p, nlines, u.kind)
		return
	}
	// stray text: a line of prose, an unknown format. When a dated wrapper
	// carried it, it is an entry of its own (other components' output).
	if (u.kind != wrapNone && u.ts != nil) || (sc.envText && len(p) > 0) {
		sc.open(entOther, p, u, line, nlines)
		return
	}
	st.in.Irrelevant += nlines
}
