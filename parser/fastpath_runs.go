package parser

import (
	"time"
)

// This file owns the scanner's side of the fast path: accounting for a run
// of plain lines (analyzeBlock) in one step, exactly as physical would line
// by line.

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

func wallAt(data []byte, off int) wall {
	w, _ := plainKlogWall(data[off:])
	return w
}
