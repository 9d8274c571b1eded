package parser

import (
	"bytes"
	"time"
)

// This file is the wrapper registry: the outer wrappers a physical line may
// carry around its payload (journald, CRI, docker json-file, kubectl
// --timestamps, the Rancher UI stamp, pod-name prefixes, k9s box borders,
// Cloud Logging console table rows),
// each defined in a wrap_*.go file of its own, and the unwrapper that
// removes them line by line.
//
// Each wrapper declares what it claims: the first bytes of the lines it may
// decode (firsts) and a cheap test that every line it decodes passes
// (claims). The fast path asks the registry instead of knowing the
// wrappers: a plain JSON line is one no wrapper claims (plainJSON), a
// wrapped klog line one that no other wrapper claims (plainWrapped);
// TestWrapperClaims holds every decoder to its claims.
//
// Adding a line wrapper is one file, wrap_<name>.go, with its decoder, its
// timestamp reader and a `var <name>Wrapper = wrapper{…}`, plus two lines
// here: a wrapKind constant (before numWraps; the order is the order unwrap
// tries them in) and its entry in wrappers. Nothing else changes: sniffing,
// voting, Input.Wrapper names, Options.Format values (InputFormats lists them
// for the CLI), clock evidence and the fast path's proofs all read the
// registry.
//
// Whole-document envelopes (a JSON array of records, cloud log exports) and
// JSON-lines envelopes are not line wrappers: they are decoded before the
// scanner, in the source stage (see envelopes in source_envelope.go).

// wrapKind names an outer wrapper around the log payload.
type wrapKind uint8

const (
	wrapNone       wrapKind = iota
	wrapJournald            // "Mon DD hh:mm:ss host proc[pid]: " (also short-iso)
	wrapCRI                 // "2024-…Z stderr F "
	wrapDocker              // {"log":"…\n","stream":"stderr","time":"…"}
	wrapKubectlTS           // "2024-…Z " (kubectl logs --timestamps)
	wrapUI                  // "7/29/2016 7:38:17 PM" glued to the payload (Rancher UI)
	wrapPodPrefix           // "[pod] ", "pod container " (kubetail, kubectl logs --prefix, stern)
	wrapK9s                 // "│ … │" (a terminal UI's box: k9s)
	wrapGCPConsole          // "12\tINFO\t2024-08-12 03:10:00.612 UTC\t…" (Logs Explorer table rows)
	numWraps
)

// wrapper is one registered line wrapper.
type wrapper struct {
	// name is the wrapper's name in Input.Wrapper and Options.Format.
	name string
	// firsts are the bytes a line this wrapper decodes may start with.
	firsts string
	// claims reports whether line may be this wrapper's: false for every
	// line decode rejects without marking it broken (it may accept more).
	claims func(line []byte) bool
	// decode removes the wrapper from line into out and reports success;
	// a line that starts like the wrapper but cannot be decoded sets
	// out.broken (and out.kind) and returns false.
	decode func(u *unwrapper, line []byte, out *unwrapped) bool
	// shares names the wrapper whose decoder this one is (the decoder
	// decides which of the two a line is); wrapNone when its own.
	shares wrapKind
	// time reads the wrapper's timestamp text (unwrapped.ts, never empty).
	time func(ts []byte) (wrapTime, bool)
}

// wrappers is the registry, by kind; wrapNone has no entry.
var wrappers = [numWraps]*wrapper{
	wrapJournald:   &journaldWrapper,
	wrapCRI:        &criWrapper,
	wrapDocker:     &dockerWrapper,
	wrapKubectlTS:  &kubectlTSWrapper,
	wrapUI:         &uiWrapper,
	wrapPodPrefix:  &podPrefixWrapper,
	wrapK9s:        &k9sWrapper,
	wrapGCPConsole: &gcpConsoleWrapper,
}

// wrapNames are the names used in Input.Wrapper and Options.Format.
var wrapNames = func() (n [numWraps]string) {
	n[wrapNone] = "none"
	for k := wrapJournald; k < numWraps; k++ {
		n[k] = wrappers[k].name
	}
	return n
}()

// claimants lists, by first byte, the wrappers that may claim a line
// starting with it (wrapper.firsts).
var claimants = func() (t [256][]wrapKind) {
	for k := wrapJournald; k < numWraps; k++ {
		for i := 0; i < len(wrappers[k].firsts); i++ {
			c := wrappers[k].firsts[i]
			t[c] = append(t[c], k)
		}
	}
	return t
}()

// decoderOf is the wrapper whose decoder k uses.
func decoderOf(k wrapKind) wrapKind {
	if s := wrappers[k].shares; s != wrapNone {
		return s
	}
	return k
}

// claimedBy reports whether a wrapper other than k (and than the wrappers
// sharing k's decoder; wrapNone: any wrapper) may claim line, so that unwrap
// could read it otherwise than k does. line is not empty.
func claimedBy(line []byte, k wrapKind) bool {
	for _, o := range claimants[line[0]] {
		if (k == wrapNone || decoderOf(o) != decoderOf(k)) && wrappers[o].claims(line) {
			return true
		}
	}
	return false
}

// grepPrefix is the name of the `grep -r` file-name prefix "wrapper".
const grepPrefix = "grep-prefix"

// unwrapped is one physical line with its wrappers removed.
type unwrapped struct {
	kind    wrapKind
	grep    bool   // a `grep -r` "path:" prefix was removed
	payload []byte // what the wrapper carried (may alias the line or a scratch buffer)
	ts      []byte // the wrapper's timestamp text, nil when none
	host    []byte // journald host
	proc    []byte // journald process name
	partial bool   // CRI "P" or a docker record without a trailing newline: join with the next
	broken  bool   // the line starts like the wrapper but could not be decoded
}

// unwrapper removes wrappers line by line. It remembers the wrapper of the
// previous line and tries it first; a line that does not fit falls back to
// the other wrappers, so mixed inputs (a journald paste followed by raw klog)
// work line by line. With a forced wrapper only that one is tried.
type unwrapper struct {
	prefer    wrapKind
	forced    bool
	scratch   []byte
	podPrefix []byte    // the pod-prefix of the previous line
	quoted    bool      // the previous line was blockquoted (wrap_markup.go)
	out       unwrapped // unwrapWrapped's result while it is found
}

// sniffSample is how many non-empty lines sniffWrapper scores.
const sniffSample = 200

// sniffWrapper scores the first sniffSample non-empty lines of head against
// every wrapper and returns the one most lines fit (wrapNone when klog lines
// without a wrapper dominate). It decides which wrapper unwrap tries first;
// each line still falls back to the others on its own.
func sniffWrapper(head []byte) wrapKind {
	var score [numWraps]int
	var u unwrapper
	n := 0
	for len(head) > 0 && n < sniffSample {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue
		}
		n++
		if rest, ok := cutGrepPrefix(line); ok {
			line = rest
		}
		found := false
		for k := wrapJournald; k < numWraps; k++ {
			var out unwrapped
			if u.try(k, line, &out) {
				score[out.kind]++
				found = true
				break
			}
		}
		if !found && looksKlog(line) {
			score[wrapNone]++
		}
	}
	best := wrapNone
	for k := wrapJournald; k < numWraps; k++ {
		if score[k] > score[best] {
			best = k
		}
	}
	return best
}

// unwrap removes the wrappers of one line. A bare klog line, the common
// case, returns at once.
func (u *unwrapper) unwrap(line []byte) unwrapped {
	line = u.cutMarkup(line)
	if !u.forced && looksKlog(line) {
		return unwrapped{payload: line}
	}
	return u.unwrapWrapped(line)
}

// unwrapWrapped is unwrap for a line that is not bare klog (after markup).
func (u *unwrapper) unwrapWrapped(line []byte) unwrapped {
	// the decoders, called through the registry, fill u's own result
	// (one on the stack would escape, an allocation a line)
	out := &u.out
	*out = unwrapped{}
	if rest, ok := cutGrepPrefix(line); ok {
		out.grep = true
		line = rest
	}
	if u.forced {
		if u.prefer != wrapNone {
			u.try(u.prefer, line, out)
		}
		if out.payload == nil && !out.broken {
			out.kind = wrapNone
			out.payload = line
		}
		return *out
	}
	if u.prefer != wrapNone && u.try(u.prefer, line, out) {
		return *out
	}
	if len(line) > 0 {
		// only the wrappers whose lines may start with line's first byte
		// (wrapper.firsts: no other decodes it or finds it broken), in
		// registry order
		for _, k := range claimants[line[0]] {
			if k != u.prefer && u.try(k, line, out) {
				u.prefer = k
				return *out
			}
		}
	}
	if out.broken {
		return *out
	}
	out.kind = wrapNone
	out.payload = line
	return *out
}

// try decodes line as wrapper k; it fills out and reports success.
func (u *unwrapper) try(k wrapKind, line []byte, out *unwrapped) bool {
	if k == wrapNone || k >= numWraps {
		return false
	}
	return wrappers[k].decode(u, line, out)
}

// wrapTime is what a wrapper timestamp says.
type wrapTime struct {
	abs  time.Time // absolute instant when the wrapper has year and offset
	w    wall      // wall clock when it has no zone (journald, UI)
	year int       // year when known without a zone (UI)
}

// parseWrapTime decodes the wrapper timestamp text of kind k.
func parseWrapTime(k wrapKind, ts []byte) (wt wrapTime, ok bool) {
	if len(ts) == 0 || k == wrapNone || k >= numWraps {
		return wt, false
	}
	return wrappers[k].time(ts)
}
