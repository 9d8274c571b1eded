// Package mempolicy is the memory policy of one run of the program: how
// the Go heap is placed, how far it may grow and when the collector may be
// held off, decided once, from the size of the input, before anything is
// read. The program (cmd/kcmtrace) calls Start once around a run; nothing
// else changes the runtime's process-wide memory settings.
//
// It owns three settings:
//
//   - Huge pages. From hugeMinInput on, twice memBase + memPerGiB per GiB of
//     input, at most maxHugeReserve, of address space is reserved for the
//     heap on transparent huge pages (internal/hugeheap, the mechanism): on
//     a VM where a 4 KiB fault costs ~10 µs that took 128 MiB of KCM log
//     from 0.12 to 0.08 s, and 1 GiB from 0.54 to 0.40 s.
//   - The soft memory limit. The live heap grows with the relevant events,
//     which grow with the input (about 54 MiB per GiB of KCM log with 1%
//     volume lines at its largest, once the timeline is built; measured
//     with internal/benchmark TestHeapStages). GOGC=100 lets the heap reach
//     twice that before collecting; a soft limit of memBase + memPerGiB per
//     GiB of input keeps it near the live size for large inputs, and is
//     never reached by small ones. It is soft: when the live heap is larger
//     the runtime collects more often (at most about half the CPU), it never
//     fails. The per-GiB share leaves the live heap ~13% headroom: at 48 MiB
//     per GiB a 4 GiB input sat at its limit and collected continuously
//     (4.7 s against 3.8 s). The limit covers the Go heap (the parser's read
//     buffers included); the binary, goroutine stacks and the runtime's own
//     memory come on top (1 GiB of KCM log: peak RSS 90–97 MiB). Below
//     memMinInput the default is kept: the heap is small anyway. Once the
//     input is parsed (Run.Parsed), the limit grows by memModelRoom for
//     building the model: the timeline's tables are then allocated on top
//     of the parsed events, and a collection started by them ran on the part
//     of the run that uses one core (1 GiB: 0.321/0.338 → 0.302/0.325 s
//     best/median of 7, peak RSS 87 → 91–97 MiB). GOMEMLIMIT, when set,
//     wins.
//   - Collector holds. Parser, timeline and rules fill large new arrays
//     through internal/prefault, which holds the collector off (GOGC) from
//     an array's allocation until its pages are written. That changes a
//     process-wide setting, so prefault takes holds only while a run allows
//     them (prefault.AllowHolds): from Start to End.
//
// The input's size is estimated by parser.TextSize, which tells compressed
// input by its magic numbers as reading does. The policy knows nothing else
// of logs.
package mempolicy

import (
	"runtime/debug"

	"github.com/kcmtrace/kcmtrace/internal/hugeheap"
	"github.com/kcmtrace/kcmtrace/internal/prefault"
	"github.com/kcmtrace/kcmtrace/parser"
)

// The sizes of the policy (see the package comment).
const (
	memBase        = 15 << 20
	memPerGiB      = 61 << 20
	memModelRoom   = 10 << 20
	memMinInput    = 256 << 20
	hugeMinInput   = 16 << 20
	maxHugeReserve = 1 << 30
)

// Run is the policy in force for one run, from Start to End.
type Run struct {
	limit    int64 // the soft limit Start set; 0 when it set none
	oldLimit int64 // the limit before Start
	revoke   func()
}

// Start puts the policy in force for a run over the inputs paths: it
// allows collector holds, and, from the regular files' text size
// (parser.TextSize), reserves huge pages for the heap and sets the soft
// limit. It reserves and limits nothing when a path is not a regular file
// (a directory, stdin: size unknown) or when the input is small; the limit
// is left alone when getenv("GOMEMLIMIT") is set. Call it once, before the
// input is read; the CLI's run ends with its process, so it never calls
// End.
func Start(paths []string, getenv func(string) string) *Run {
	r := &Run{revoke: prefault.AllowHolds()}
	total, ok := parser.TextSize(paths)
	if !ok || total < hugeMinInput {
		return r
	}
	limit := memBase + int64(float64(total)/(1<<30)*memPerGiB)
	hugeheap.Reserve(int(min(2*limit, maxHugeReserve)))
	if total >= memMinInput && getenv("GOMEMLIMIT") == "" {
		r.oldLimit = debug.SetMemoryLimit(limit)
		r.limit = limit
	}
	return r
}

// Parsed, called once the input is parsed, gives the model its room: the
// soft limit, when Start set one, grows by memModelRoom.
func (r *Run) Parsed() {
	if r.limit > 0 {
		debug.SetMemoryLimit(r.limit + memModelRoom)
	}
}

// End takes the policy out of force: no more collector holds, and the soft
// limit as it was before Start (the reserved address space stays part of
// the heap). It is for a process that runs more than once, as tests do.
func (r *Run) End() {
	r.revoke()
	if r.limit > 0 {
		debug.SetMemoryLimit(r.oldLimit)
	}
}
