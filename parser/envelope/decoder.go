package envelope

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"time"
	"unicode/utf8"
)

// errStop unwinds a shape's decode loop when yield returned an error
// (kept in decoder.stopErr).
var errStop = errors.New("stop")

// decoder is the state one Decode call shares with its shape: statistics,
// de-duplication and the caller's yield.
type decoder struct {
	st        Stats
	yield     func(Record) error
	stopErr   error
	seen      keySets
	seed      maphash.Seed
	seeded    bool
	opt       Options
	fields    []rawField     // rawItem's members, reused
	raw       rawObject      // rawItem's object, reused
	cache     rawCache       // what raw keeps from record to record
	plans     planCache      // rawItem's field plans
	fixRec    Record         // the record a fieldMap's fix works on
	elems     [][2]int       // rawLokiValue's element spans, reused
	fieldList fieldListValue // rawFieldList's object, reused
	row       rowValue       // rawRow's object, reused

	// sink, when not nil, keeps what the decoder would emit — records
	// and problems, in order — instead of emitting it: a worker's decoder
	// (parallel.go). skimHead is then the head the worker's Skim was
	// last asked about, which a skimmed record keeps in heads for the
	// replay (a sink that only ever gets problems, the line reader's, has
	// no heads).
	sink     *[]lineItem
	heads    *[]byte
	skimHead []byte
}

// rawRecords turns the raw-bytes reading of record objects on (tests turn
// it off to compare with encoding/json's maps).
var rawRecords = true

// problem records a problem at line (0 for none).
func (d *decoder) problem(line int, format string, args ...any) {
	if d.sink != nil {
		*d.sink = append(*d.sink, lineItem{kind: itemProblem, pos: line, msg: fmt.Sprintf(format, args...)})
		return
	}
	if len(d.st.Problems) >= MaxProblems {
		d.st.ProblemCount++ // counted only: not written
		return
	}
	d.problemText(line, fmt.Sprintf(format, args...))
}

// problemText records a problem already written (a worker's, replayed).
func (d *decoder) problemText(line int, msg string) {
	d.st.ProblemCount++
	if len(d.st.Problems) < MaxProblems {
		d.st.Problems = append(d.st.Problems, Problem{Line: line, Msg: msg})
	}
}

// cutOff records that the document ends inside a record (Stats.Cut), and
// the problem saying where.
func (d *decoder) cutOff(line int, format string, args ...any) {
	d.st.Cut = true
	d.problem(line, format, args...)
}

// finish adds the summary of problems that were only counted.
func (d *decoder) finish() {
	if n := d.st.ProblemCount - len(d.st.Problems); n > 0 {
		d.st.Problems = append(d.st.Problems, Problem{Msg: fmt.Sprintf("%d more problems not listed", n)})
	}
}

// emit checks, de-duplicates and yields one record. It returns errStop
// when yield failed.
func (d *decoder) emit(r Record) error {
	if d.sink != nil {
		it := lineItem{kind: itemRecord, rec: r}
		if r.Skimmed {
			it.head = int32(len(*d.heads))
			*d.heads = append(*d.heads, d.skimHead...)
			it.headEnd = int32(len(*d.heads))
		}
		*d.sink = append(*d.sink, it)
		return nil
	}
	if r.Skimmed {
		r.Msg = ""
	}
	r.Msg = trimNewline(r.Msg)
	if !utf8.ValidString(r.Msg) {
		d.problem(r.Pos, "message is not valid UTF-8; invalid bytes replaced with U+FFFD")
		r.Msg = strings.ToValidUTF8(r.Msg, "\uFFFD")
	}
	if r.ID != "" {
		if !d.seeded {
			d.seed, d.seeded = maphash.MakeSeed(), true
		}
		var h maphash.Hash
		h.SetSeed(d.seed)
		h.WriteString(r.ID)
		h.WriteByte(0)
		h.WriteString(r.Labels.Component)
		var b [8]byte
		n := r.Time.UnixNano()
		for i := range b {
			b[i] = byte(n >> (8 * i))
		}
		h.Write(b[:])
		k := h.Sum64()
		if !d.seen.add(k, n/keyWindow) {
			d.st.Duplicates++
			return nil
		}
	}
	if r.Time.IsZero() {
		r.TimeSource = TimeNone
		d.st.NoTime++
		d.problem(r.Pos, "record without a usable time")
	}
	d.st.Records++
	if err := d.yield(r); err != nil {
		d.stopErr = err
		return errStop
	}
	return nil
}

// keySets holds the keys of the records seen (hashes of ID, component and
// time), one idSet per keyWindow of record time: equal keys have equal
// times, and an export's records come in time order or nearly (a page,
// a stream at a time), so that a record's set is the last one's or one
// of a few, small and in the cache. One set of every key took a cache
// miss or two for each record (a 336 MB CloudWatch export, 650k records:
// 16% of the decoding). A set holds any number of keys: all the records
// of one instant cost what one set of them did.
type keySets struct {
	byWin   map[int64]*idSet
	lastWin int64
	last    *idSet
}

// keyWindow is the record time each idSet of keySets covers.
const keyWindow = int64(time.Second)

// add adds key k of a record in window win and reports whether it was new.
func (ks *keySets) add(k uint64, win int64) bool {
	if ks.last == nil || win != ks.lastWin {
		if ks.byWin == nil {
			ks.byWin = map[int64]*idSet{}
		}
		s := ks.byWin[win]
		if s == nil {
			s = &idSet{}
			ks.byWin[win] = s
		}
		ks.last, ks.lastWin = s, win
	}
	return ks.last.add(k)
}

// idSet is a set of record keys: open addressing with linear probing, 0
// standing for an empty slot (the key 0 is kept apart).
type idSet struct {
	slots []uint64
	n     int
	zero  bool
}

// minIDSlots is the size of an idSet's first table.
const minIDSlots = 16

// add adds k and reports whether it was new.
func (s *idSet) add(k uint64) bool {
	if k == 0 {
		had := s.zero
		s.zero = true
		return !had
	}
	if 2*(s.n+1) > len(s.slots) {
		old := s.slots
		s.slots = make([]uint64, max(minIDSlots, 2*len(old)))
		s.n = 0
		for _, o := range old {
			if o != 0 {
				s.insert(o)
			}
		}
	}
	return s.insert(k)
}

func (s *idSet) insert(k uint64) bool {
	mask := uint64(len(s.slots) - 1)
	for i := (k * 0x9E3779B97F4A7C15) >> 7 & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = k
			s.n++
			return true
		case k:
			return false
		}
	}
}

func trimNewline(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// sample is the start of an input, split into its first lines, for scoring.
type sample struct {
	data  []byte
	lines [][]byte // up to sampleLines non-empty lines, trailing "\r" removed
	// last is true when the final element of lines is cut by the sample's end.
	cut bool
}

const sampleLines = 200

func newSample(b []byte) *sample {
	s := &sample{data: b}
	rest := b
	for len(rest) > 0 && len(s.lines) < sampleLines {
		line := rest
		i := bytes.IndexByte(rest, '\n')
		if i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
			s.cut = len(b) >= SampleSize
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) > 0 {
			s.lines = append(s.lines, line)
		}
	}
	return s
}

// first returns the first non-space byte of the sample, or 0.
func (s *sample) first() byte {
	t := bytes.TrimLeft(s.data, " \t\r\n\ufeff")
	t = bytes.TrimPrefix(t, []byte("\ufeff"))
	if len(t) == 0 {
		return 0
	}
	return t[0]
}

// has reports whether the sample contains every one of the strings.
func (s *sample) has(subs ...string) bool {
	for _, x := range subs {
		if !bytes.Contains(s.data, []byte(x)) {
			return false
		}
	}
	return true
}

// fraction is the share (0..100) of the sample's complete lines for which
// ok holds; 0 when there are none.
func (s *sample) fraction(ok func([]byte) bool) int {
	n, hit := 0, 0
	for i, l := range s.lines {
		if s.cut && i == len(s.lines)-1 {
			break
		}
		n++
		if ok(l) {
			hit++
		}
	}
	if n == 0 {
		return 0
	}
	return hit * 100 / n
}
