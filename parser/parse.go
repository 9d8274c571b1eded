package parser

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/kcmtrace/kcmtrace/internal/prefault"
	"github.com/kcmtrace/kcmtrace/parser/textstore"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Options control how inputs are read. The zero value resolves everything
// from the inputs themselves.
type Options struct {
	// Year overrides the year of klog/journald timestamps (--year); 0 resolves it.
	Year int
	// Location overrides the zone of klog/journald wall clocks (--tz); nil
	// resolves it per input.
	Location *time.Location
	// Format overrides detection (--input-format): "" or "auto", one of
	// InputFormats.
	Format string
	// MaxLineBytes caps a physical line; 0 means DefaultMaxLineBytes. A longer
	// line is skipped (Input.Skipped["too-long"]) with a Problem; memory stays
	// bounded by the cap.
	MaxLineBytes int
	// MaxEvents caps the events a run keeps after folding repeats, across
	// all its inputs; 0 means DefaultMaxEvents, negative no cap. It is given
	// out in input order (the order ParseAll returns the results in): an
	// input keeps its first events up to what the inputs before it left,
	// whatever the order they were read in. The events past it are dropped
	// (Input.Dropped, each with the repeats folded into it), the input is
	// marked Truncated (exit 3) and a Problem says so; the events kept are
	// reported.
	MaxEvents int
	// Progress, when set, is called with the number of input bytes consumed
	// since the previous call: text bytes, i.e. decompressed for .gz, .zst
	// and .xz (what TextSize estimates), after the first compressed read.
	Progress func(n int64)
	// Stdin is what the path "-" reads; nil means os.Stdin.
	Stdin io.Reader
	// Streams gives the inputs fetched from log stores (keyed by their
	// file's cleaned path) their envelope, role and name (stream_input.go).
	Streams map[string]StreamInput

	noPrefilter bool // tests: classify every entry, to check the prefilter's token list
	// run and runIndex are the run's budget as ParseAll shares it among
	// the inputs it reads, and the input's place in it (store.go)
	run      *runShare
	runIndex int
	onRead   func(path string, stored int) // tests: told the events each input holds once read
	now      time.Time                     // tests: the "current" time for the assumed year
}

// DefaultMaxLineBytes is the line cap when Options.MaxLineBytes is 0.
const DefaultMaxLineBytes = 16 << 20

// DefaultMaxEvents is the event cap of a run when Options.MaxEvents is
// 0: at about 440 bytes an event (Event and its clock metadata) plus its
// text, some 5 GiB — far beyond a real log once repeats are folded (a
// million volumes give a few million events), but a bound on inputs of
// millions of distinct volumes.
const DefaultMaxEvents = 10_000_000

// maxEvents is the cap Options.MaxEvents means (0: no cap).
func (opt Options) maxEvents() int {
	switch {
	case opt.MaxEvents == 0:
		return DefaultMaxEvents
	case opt.MaxEvents < 0:
		return 0
	}
	return opt.MaxEvents
}

// InputFormats lists the values Options.Format accepts besides "" and "auto".
// Wrapper names force that wrapper (lines that do not fit it are read as bare
// payload); "klog" means no wrapper; "json" reads every object line as a
// --logging-format=json line; "describe" and "get-events" read event tables.
var InputFormats = []string{"klog", "journald", "cri", "docker-json", "kubectl-timestamps", "ui-timestamp", "json", "describe", "get-events"}

// Skip reasons used in Input.Skipped.
const (
	SkipTooLong   = "too-long"  // longer than MaxLineBytes
	SkipBinary    = "binary"    // contains NUL bytes
	SkipBlank     = "blank"     // empty line
	SkipComment   = "comment"   // "#" annotation line
	SkipPrompt    = "prompt"    // shell prompt with a command ("[root@host ~]# journalctl …")
	SkipMarkup    = "markup"    // ``` fences, journalctl "-- Logs begin at …" markers
	SkipMalformed = "malformed" // starts like a wrapper record but cannot be decoded (broken docker JSON)
	SkipEnvelope  = "envelope"  // an export's framing, the further lines of multi-line records, duplicate records (source_envelope.go)
)

// maxProblems caps Input.Problems; one more entry says how many were left out.
const maxProblems = 100

// maxEntryBytes caps the text of one multi-line entry (continuations beyond
// it are counted but not kept).
const maxEntryBytes = 4 << 20

// ParseAll expands paths (files, .gz, directories, "-" for stdin) and parses
// each input. Unreadable paths give one-line errors ("open kcm.log: no such
// file or directory"); the rest is still parsed. Results are in command-line
// order (a directory's files in walk order at its place). Inputs without
// evidence of their own year/zone inherit them from another input sharing
// their clock (same journald host, or the zone all evidenced inputs agree
// on); relative describe ages are anchored to the newest time of the other
// inputs.
func ParseAll(paths []string, opt Options) ([]Result, []error) {
	// every source in command-line order; they are parsed concurrently
	// (up to GOMAXPROCS at a time) and collected in that order
	type job struct {
		src source
		err error
		st  *inputState
	}
	var jobs []*job
	for _, p := range paths {
		srcs, skips, err := expand(p)
		if err != nil {
			jobs = append(jobs, &job{err: err})
			continue
		}
		for _, s := range skips {
			jobs = append(jobs, &job{err: s})
		}
		for _, src := range srcs {
			jobs = append(jobs, &job{src: src})
		}
	}
	if opt.Progress != nil {
		var mu sync.Mutex
		progress := opt.Progress
		opt.Progress = func(n int64) {
			mu.Lock()
			defer mu.Unlock()
			progress(n)
		}
	}
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	share := newRunShare(len(jobs), opt.maxEvents())
	for i, j := range jobs {
		if j.err != nil {
			share.finish(i, 0)
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		o := opt
		o.run, o.runIndex = share, i
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			j.st, j.err = parseSource(j.src, o, 0)
			stored := 0
			if j.st != nil {
				stored = j.st.storedEvents()
			}
			if opt.onRead != nil {
				opt.onRead(j.src.path, stored)
			}
			share.finish(i, stored)
		}()
	}
	wg.Wait()
	var errs []error
	var states []*inputState
	for _, j := range jobs {
		if j.err != nil {
			errs = append(errs, j.err)
			continue
		}
		states = append(states, j.st)
	}
	runBudget(states, opt.maxEvents())
	flattenAll(states)
	for i, st := range states {
		st.setIndex(i)
	}
	for _, st := range states {
		st.resolveOwn(opt)
	}
	inherit(states)
	for _, st := range states {
		st.fallback(opt)
		st.convert()
	}
	anchorAll(states)
	out := make([]Result, len(states))
	for i, st := range states {
		out[i] = st.result()
	}
	return out, errs
}

// setIndex sets the input's position among the results (Source.Input).
func (st *inputState) setIndex(i int) {
	st.index = i
	for k := range st.events {
		st.events[k].Source.Input = Int32(i)
	}
}

// pathID is the PathID of the input's path (Source.File), interned when
// the path is first asked for or has changed (a stream is named before it
// is read).
func (st *inputState) pathID() PathID {
	if st.fileID == 0 || st.fileOf != st.in.Path {
		st.fileID, st.fileOf = InternPath(st.in.Path), st.in.Path
	}
	return st.fileID
}

// ParseReader parses one stream. It never panics; problems go to
// Result.Input.Problems. Year/zone come from the stream itself, then the
// file's mtime when r is an *os.File, then the current year and UTC.
func ParseReader(r io.Reader, path string, opt Options) Result {
	st := newInputState(path, 0)
	st.maxEvents = opt.maxEvents()
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			st.mtime = fi.ModTime()
		}
	}
	st.read(r, opt)
	return st.alone(opt)
}

// alone finishes an input parsed on its own: year and zone from its own
// evidence or the fallbacks, times converted, describe ages anchored.
func (st *inputState) alone(opt Options) Result {
	flattenAll([]*inputState{st})
	st.resolveOwn(opt)
	st.fallback(opt)
	st.convert()
	anchorAll([]*inputState{st})
	return st.result()
}

// inputState is one input while it is read and resolved.
type inputState struct {
	in Input
	// events and metas are the input's events once read (flattenAll);
	// while it is read they grow in pages, which are never copied, or,
	// once reserve has sized them for the whole input (direct), in
	// events and metas themselves.
	events []Event
	metas  []evMeta
	pages  [][]Event
	mpages [][]evMeta
	// sizeHint is the input's size in bytes when known before reading (a
	// regular, uncompressed file), seen how many of its bytes the scanner
	// has applied (whole blocks: it lags the events by up to a block, so
	// an estimate from it errs on the large side).
	sizeHint, seen   int64
	file             *os.File // the input when it is a file (parseSource), mapped to read it (source_mmap.go)
	direct, reserved bool
	added            int // events stored so far
	maxEvents        int // the cap on added (0: none), dropped the events past it (store.go)
	dropped          int
	runCut           bool      // runBudget cut the input short (the inputs before it had the budget)
	run              *runShare // the run's budget as the inputs read so far left it (Options.run)
	runIndex         int
	spent            bool                  // the inputs before this one have the run's budget: nothing more is stored
	folds            map[string][]*foldRun // the current runs of repeats per volume (fold.go)
	next             *foldRun              // the run the event about to be stored is the one to fold into (fold.go)
	foldSpans        []foldSpan
	mtime            time.Time
	host             string
	procs            map[string]int
	evid             []evidence

	wrapVotes   [numWraps]int
	grepVotes   int
	envelope    string          // the document or line envelope read (source_envelope.go), if any
	envRole     string          // the component the envelope's labels name (majority), if any
	role        string          // the component of records without a label role (StreamInput.Role)
	envHint     string          // what the input looks like when no envelope claimed it
	formatVotes [numFormats]int // entries per format (formatNames)

	// extent of the input's own clock readings
	firstW, lastW       wall
	firstYoff, lastYoff int
	haveWall            bool
	minAbs, maxAbs      time.Time

	// resolution
	year     int
	off      time.Duration
	loc      *time.Location
	hasOff   bool
	resolved bool

	problemsLeft int
	index        int // Source.Input of the events
	// fileID is in.Path interned (Source.File of the events), fileOf the
	// path it was interned for (file)
	fileID PathID
	fileOf string

	// texts keeps the events' texts, names their names (store.go: own)
	texts textstore.Builder
	names textstore.Names
	// origin, for a regular file read in order (source_mmap.go: blocks),
	// refers to the texts that are runs of its bytes instead of keeping
	// them (store.go: keepText); fileBlocks are the blocks of it the
	// scanner holds (the one held back and the current one), where such
	// texts lie
	origin     *textstore.Origin
	fileBlocks [2]fileBlock
	// idents, places and causes are the events' tuples of names
	idents textstore.Tuples[Ident]
	places textstore.Tuples[Place]
	causes textstore.Tuples[Cause]
}

func newInputState(path string, index int) *inputState {
	return &inputState{
		in:           Input{Path: path, Skipped: map[string]int{}},
		procs:        map[string]int{},
		problemsLeft: maxProblems,
		index:        index,
	}
}

// problem records a one-line complaint, capped at maxProblems.
func (st *inputState) problem(line int, format string, args ...any) {
	if st.problemsLeft == 0 {
		return
	}
	st.problemsLeft--
	msg := fmt.Sprintf(format, args...)
	if st.problemsLeft == 0 {
		msg = "too many problems; further ones are not listed"
		line = 0
	}
	st.in.Problems = append(st.in.Problems, Problem{Line: line, Message: msg})
}

// read parses r to the end, recovering from any panic.
func (st *inputState) read(r io.Reader, opt Options) {
	st.readWith(r, opt, (*scanner).run)
}

// readWith is read with the scanner's loop given: the block pipeline in
// production, the line-at-a-time reference loop in tests.
func (st *inputState) readWith(r io.Reader, opt Options, loop func(*scanner, io.Reader)) {
	st.guarded(opt, func(sc *scanner) {
		raw := r
		r, comp, closeFn, err := decompress(raw, st.sizeHint)
		if err != nil {
			st.problem(0, "%v", err)
			st.in.Truncated = true
			return
		}
		if closeFn != nil {
			defer closeFn()
		}
		sc.comp = comp
		if comp != "" {
			st.sizeHint = 0 // the file's size is not the text's
			if cr, ok := raw.(*countingReader); ok {
				// Progress counts the text from here on (the compressed
				// bytes sniffed so far stay counted: at most sniffBufSize)
				r = &countingReader{r: r, progress: cr.progress}
				cr.progress = nil
			}
		}
		if br, ok := r.(*bufio.Reader); ok || len(envelopes) > 0 {
			if !ok {
				br = bufio.NewReaderSize(r, sniffBufSize)
				r = br
			}
			if e := forcedEnvelope(opt.Format); e != nil {
				sc.records(e, opt.Format, br)
				return
			}
			if !sc.unw.forced && opt.Format != "describe" && opt.Format != "get-events" {
				e, name, hint := sniffEnvelope(br)
				if e != nil {
					sc.records(e, name, br)
					return
				}
				st.envHint = hint
			}
		}
		loop(sc, r)
	})
}

// guarded runs body with a new scanner, recovering from any panic (a
// bug): the lines read are kept and the input is marked truncated.
func (st *inputState) guarded(opt Options, body func(*scanner)) {
	sc := newScanner(st, opt)
	defer st.endTexts()
	defer func() {
		if p := recover(); p != nil {
			st.problem(st.in.Lines, "internal error, rest of input not read: %v", p)
			st.in.Truncated = true
			// keep the line accounting balanced
			st.in.Skipped["internal-error"] += st.in.Lines - st.accounted()
		}
	}()
	body(sc)
}

// accounted is the number of lines put into one of the buckets.
func (st *inputState) accounted() int {
	n := st.in.EventLines + st.in.Irrelevant
	for _, v := range st.in.Skipped {
		n += v
	}
	return n
}

// Unaccounted returns how many physical lines are in no bucket; it is 0 for
// every parsed input: Lines == EventLines + Irrelevant + the sum of Skipped.
func (in *Input) Unaccounted() int {
	n := in.Lines - in.EventLines - in.Irrelevant
	for _, v := range in.Skipped {
		n -= v
	}
	return n
}

// result finishes the Input summary.
func (st *inputState) result() Result {
	in := &st.in
	in.Events = len(st.events)
	in.Unknown = 0
	var byComp [256]int // Component is a byte: counted by value, named once
	for i := range st.events {
		ev := &st.events[i]
		if ev.Kind == Unknown {
			in.Unknown++
		}
		byComp[ev.Component]++
	}
	comp := map[string]int{}
	for c, n := range byComp {
		if c != 0 && n > 0 {
			comp[Component(c).String()] += n
		}
	}
	in.Component = majority(comp, "")
	if st.envRole != "" && st.envRole != "mixed" {
		in.Component = st.envRole // the envelope's labels say it before the content does
	}
	if in.Component == "" {
		in.Component = componentFromProcs(st.procs)
	}
	if in.Format == "" {
		votes := map[string]int{}
		for f, n := range st.formatVotes {
			if n > 0 {
				votes[formatNames[f]] = n
			}
		}
		in.Format = majority(votes, "unknown")
	}
	best := wrapNone
	for k := wrapJournald; k < numWraps; k++ {
		if st.wrapVotes[k] > st.wrapVotes[best] {
			best = k
		}
	}
	in.Wrapper = wrapNames[best]
	if st.envelope != "" {
		in.Wrapper = st.envelope
	}
	if st.grepVotes*2 > in.Lines-in.Skipped[SkipBlank]-in.Skipped[SkipComment] && st.grepVotes > 0 {
		if best == wrapNone {
			in.Wrapper = grepPrefix
		} else {
			in.Wrapper = grepPrefix + "+" + in.Wrapper
		}
	}
	st.noSilence()
	if len(in.Skipped) == 0 {
		in.Skipped = nil
	}
	return Result{Input: *in, Events: st.events}
}

// majority returns the key with the highest count (ties: alphabetical first),
// "mixed" when the runner-up has at least half the winner's count, def when empty.
func majority(m map[string]int, def string) string {
	if len(m) == 0 {
		return def
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	if len(keys) > 1 && m[keys[1]]*2 >= m[keys[0]] && m[keys[0]] > 2 {
		return "mixed"
	}
	return keys[0]
}

// componentFromProcs maps journald process names to a component.
func componentFromProcs(procs map[string]int) string {
	best, n := "", 0
	for p, c := range procs {
		if c > n || (c == n && p < best) {
			best, n = p, c
		}
	}
	if c := componentOf(best); c != "" {
		return c
	}
	return "unknown"
}

// componentOf is the component table: the component a process, container,
// unit or export label name stands for (kcm, kubelet, csi, "mixed" for the
// all-in-one binaries), "" when the name says nothing. A pod or log stream
// name is its component name and a suffix ("kube-controller-manager-node1").
func componentOf(name string) string {
	switch name {
	case "":
		return ""
	case "kubelet", "kubenswrapper", "origin-node":
		return ComponentKubelet.String()
	case "kube-controller-manager", "controller-manager", "kcm", "cloud-controller-manager":
		return ComponentKCM.String()
	case "k3s", "hyperkube", "k3s-server", "k3s-agent", "rke2":
		return ComponentMixed.String()
	}
	switch {
	case strings.HasPrefix(name, "kube-controller-manager-"):
		return ComponentKCM.String()
	case strings.HasPrefix(name, "kubelet-"):
		return ComponentKubelet.String()
	case strings.HasPrefix(name, "csi-") || strings.HasSuffix(name, "-csi-driver") || strings.Contains(name, "csi-plugin") || strings.Contains(name, "csi-controller") || strings.Contains(name, "csi-node"):
		return ComponentCSI.String()
	}
	return ""
}

// sanitizeText makes text valid UTF-8 (trailing newlines removed).
func sanitizeText(b []byte) string {
	b = bytes.TrimRight(b, "\n")
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// flattenAll moves the pages of every input into its events and metas,
// and lets the pages go. The events of all the inputs go into
// one array, in input order, each input's a window of it that reaches to
// the array's end: timeline.Build, which needs them all in one array, then
// takes it as it is instead of copying them again. The metas go into one
// array the same way. When the first input's events already lie in an
// array with room for all (reserve), the others' are appended to it;
// otherwise new arrays are filled. They are filled in consecutive parts,
// one per core, each part prefaulted by the goroutine that fills it (page
// faults are most of the cost).
func flattenAll(states []*inputState) {
	// a piece is an input's flat events or one of its pages, and where it
	// goes in the arrays
	type piece struct {
		evs   []Event
		metas []evMeta
		at    int
	}
	var pieces []piece
	total := 0
	for _, st := range states {
		if len(st.events) > 0 {
			pieces = append(pieces, piece{st.events, st.metas, total})
			total += len(st.events)
		}
		for k, pg := range st.pages {
			pieces = append(pieces, piece{pg, st.mpages[k], total})
			total += len(pg)
		}
	}
	var all []Event
	var metas []evMeta
	from := 0 // all[:from] is in place already
	if len(states) > 0 && len(states[0].events) > 0 && len(states[0].pages) == 0 && cap(states[0].events) >= total && cap(states[0].metas) >= total {
		st := states[0]
		// the first input's events are in an array with room for the
		// others' (reserve): only theirs are copied
		all, metas, from = st.events[:total], st.metas[:total], len(st.events)
	} else {
		// the collector is held off while the parts below are filled (see
		// prefault)
		release := prefault.HoldCollector()
		defer release()
		all, metas = make([]Event, total), make([]evMeta, total)
	}
	parts := min(max(1, runtime.GOMAXPROCS(0)), (total-from)/eventPage+1)
	var wg sync.WaitGroup
	for w := range parts {
		lo, hi := from+(total-from)*w/parts, from+(total-from)*(w+1)/parts
		wg.Go(func() {
			prefault.Slice(all[lo:hi:hi])
			prefault.Slice(metas[lo:hi:hi])
			for _, pc := range pieces {
				a, b := max(lo, pc.at), min(hi, pc.at+len(pc.evs))
				if a < b {
					copy(all[a:b], pc.evs[a-pc.at:b-pc.at])
					copy(metas[a:b], pc.metas[a-pc.at:b-pc.at])
				}
			}
		})
	}
	wg.Wait()
	start := 0
	for _, st := range states {
		n := len(st.events)
		for _, pg := range st.pages {
			n += len(pg)
		}
		st.events, st.metas = all[start:start+n:total], metas[start:start+n:start+n]
		st.pages, st.mpages = nil, nil
		start += n
	}
}
