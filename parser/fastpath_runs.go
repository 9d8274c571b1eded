package parser

import (
	"time"
)

// This file owns the scanner's side of the fast path: accounting for a run
// of plain lines (analyzeBlock) in one step, exactly as physical would line
// by line.

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
