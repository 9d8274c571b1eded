package report

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// Analysis is everything `kcmtrace analyze` shows.
type Analysis struct {
	Timeline *timeline.Timeline
	Result   rules.Result
	Rules    []rules.Rule // rules that ran (for coverage/explain)
	Events   int          // total events
}

// Options shape every renderer.
type Options struct {
	Color  bool // lipgloss colour; false → plain text, no ANSI at all
	Width  int  // terminal width; 0 → 100; stays readable at 80
	Redact bool // consistent pseudonyms for nodes, IPs, pods, namespaces, disks, request IDs
}

// DefaultWidth is the width used when Options.Width is 0.
const DefaultWidth = 100

// MinWidth is the narrowest layout the text renderers attempt.
const MinWidth = 60

func (o Options) width() int {
	switch {
	case o.Width <= 0:
		return DefaultWidth
	case o.Width < MinWidth:
		return MinWidth
	}
	return o.Width
}

// SeverityName is the lower-case name of a severity, as used in JSON.
func SeverityName(s rules.Severity) string {
	switch s {
	case rules.Info:
		return "info"
	case rules.Warning:
		return "warning"
	case rules.Critical:
		return "critical"
	}
	return "none"
}

// ts formats a time for machine output: RFC 3339 with nanoseconds, UTC; "" when zero.
func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	var buf [len(time.RFC3339Nano) + 8]byte
	return string(appendTS(buf[:0], t))
}

// appendTS appends ts(t) for a non-zero t: ASCII digits and punctuation
// only, so it needs no JSON escaping. Times from 1970 to 9999 are written
// here, several times faster than the time package writes them (the JSON
// report holds tens of thousands); the others go through the time package,
// which TestAppendTSMatchesFormat holds this to.
func appendTS(b []byte, t time.Time) []byte {
	sec := t.Unix()
	if sec < 0 || sec >= year10000 {
		return t.UTC().AppendFormat(b, time.RFC3339Nano)
	}
	y, m, d := civilDate(sec / 86400)
	s := int(sec % 86400)
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10))
	b = append2(b, y%100)
	b = append2(append(b, '-'), m)
	b = append2(append(b, '-'), d)
	b = append2(append(b, 'T'), s/3600)
	b = append2(append(b, ':'), s/60%60)
	b = append2(append(b, ':'), s%60)
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte // '.' and nine digits, trailing zeros cut
		n := len(frac)
		for i := n - 1; i > 0; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		frac[0] = '.'
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, 'Z')
}

// year10000 is 10000-01-01T00:00:00Z in Unix seconds.
const year10000 = 253402300800

// append2 appends 0 ≤ n < 100 as two digits.
func append2(b []byte, n int) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10))
}

// civilDate is the proleptic Gregorian date of a day counted from
// 1970-01-01 (days ≥ 0), by Howard Hinnant's days-to-civil algorithm.
func civilDate(days int64) (year, month, day int) {
	z := days + 719468 // from 0000-03-01
	era := z / 146097
	doe := z - era*146097                                  // day of the 400-year era
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // year of the era
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // day of the March-based year
	mp := (5*doy + 2) / 153                                // March-based month
	day = int(doy - (153*mp+2)/5 + 1)
	month = int(mp + 3)
	if month > 12 {
		month -= 12
	}
	year = int(yoe + era*400)
	if month <= 2 {
		year++
	}
	return year, month, day
}

// unknownTime stands for a time the inputs do not give.
const unknownTime = "—"

// clock formats a time for humans: "15:04:05", with the date when withDate;
// unknownTime when zero.
func clock(t time.Time, withDate bool) string {
	if t.IsZero() {
		return unknownTime
	}
	if withDate {
		return t.UTC().Format("2006-01-02 15:04:05")
	}
	return t.UTC().Format("15:04:05")
}

// spanText is "2024-08-12 03:10:00Z → 03:40:03Z" (date repeated when it changes).
func spanText(a, b time.Time) string {
	if a.IsZero() && b.IsZero() {
		return "no timestamps"
	}
	if a.IsZero() {
		return "? → " + b.UTC().Format("2006-01-02 15:04:05Z")
	}
	first := a.UTC().Format("2006-01-02 15:04:05Z")
	if b.IsZero() {
		return first + " → ?"
	}
	if sameDay(a, b) {
		return first + " → " + b.UTC().Format("15:04:05Z")
	}
	return first + " → " + b.UTC().Format("2006-01-02 15:04:05Z")
}

func sameDay(a, b time.Time) bool {
	a, b = a.UTC(), b.UTC()
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}

// rel is "+1h11m40s" relative to base, rounded to seconds below an hour's
// precision needs ("+0s", "+850ms" for sub-second steps).
func rel(t, base time.Time) string {
	if t.IsZero() || base.IsZero() {
		return ""
	}
	d := t.Sub(base)
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	if d < time.Second && d > 0 {
		return sign + d.Round(time.Millisecond).String()
	}
	return sign + d.Round(time.Second).String()
}

// human is a short duration: "77m", "1h11m40s", "2m2s", "850ms".
func human(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	d = d.Round(time.Second)
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// shorten cuts s to max display cells, keeping both ends: "pvc-2708…3c36".
func shorten(s string, max int) string {
	if max <= 1 || ansi.StringWidth(s) <= max {
		return s
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	head := (max - 1) / 2
	tail := max - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// truncate cuts s to max display cells with a trailing "…".
func truncate(s string, max int) string {
	if max < 1 {
		return ""
	}
	if ansi.StringWidth(s) <= max {
		return s
	}
	return ansi.Truncate(s, max, "…")
}

// middle cuts s to max cells, keeping a third of the head and the rest of
// the tail: log lines carry their header first and their error last.
func middle(s string, max int) string {
	if max < 8 || ansi.StringWidth(s) <= max {
		return truncate(s, max)
	}
	head := max / 3
	tail := max - head - 3
	h := ansi.Truncate(s, head, "")
	t := ansi.TruncateLeft(s, ansi.StringWidth(s)-tail, "")
	return strings.TrimRight(h, " ") + " … " + strings.TrimLeft(t, " ")
}

// excerptKeys are what makes a log line matter, most telling first.
var excerptKeys = []string{"ZoneNotMatch", "ZoneMismatch", "can not find", "cannot find", "not find", "NotFound",
	"not attached", "Multi-Attach", "already used by", "maxWaitForUnmountDuration", "DeadlineExceeded",
	"Error:", "failed", "error", "succeeded", "started", "Verified", "marked"}

// excerpt fits a log line into max cells: runs of spaces collapse, the klog
// header stays, and the rest is a window around the first telling word
// (the error class, "failed", …) with "…" where text was cut.
func excerpt(s string, max int, keys ...string) string {
	s = strings.Join(strings.Fields(s), " ")
	if ansi.StringWidth(s) <= max || max < 20 {
		return truncate(s, max)
	}
	// Too long: drop what repeats the volume's names before cutting.
	s = reUniqueName.ReplaceAllString(s, "")
	s = reUUIDShort.ReplaceAllString(s, "${1}…")
	if ansi.StringWidth(s) <= max {
		return s
	}
	headEnd := 0
	if i := strings.Index(s, "] "); i > 0 && i < 80 {
		headEnd = i + 2
	}
	head := s[:headEnd]
	if ansi.StringWidth(head) > max/3 {
		head = ansi.Truncate(head, max/3-1, "…") + " "
	}
	rest := s[headEnd:]
	avail := max - ansi.StringWidth(head)
	k := -1
	for _, key := range append(keys, excerptKeys...) {
		if key == "" {
			continue
		}
		if i := strings.Index(rest, key); i >= 0 {
			k = i
			break
		}
	}
	if k < 0 {
		return head + middle(rest, avail)
	}
	// Start a quarter of the window before the key, on a rune boundary.
	startCells := ansi.StringWidth(rest[:k]) - avail/4
	if startCells <= 0 {
		return head + truncate(rest, avail)
	}
	cut := ansi.TruncateLeft(rest, startCells+1, "")
	return head + "…" + truncate(cut, avail-1)
}

// evidenceMessage is a log line as the terminal shows it under a path:line
// gutter (which already gives where and when): the klog header dropped, a
// nestedpendingoperations wrapper reduced to its error and backoff, the
// UniqueName and UIDs (named in the incident header) dropped, long volume
// names elided in their middle. Nodes, pods and error texts stay whole.
func evidenceMessage(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = reKlogHeader.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, `\"`, `"`)
	if m := reRetryWrap.FindStringSubmatch(s); m != nil {
		s = strings.TrimSuffix(strings.TrimPrefix(m[2], `"`), `"`) + " (retry in " + m[1] + ")"
	}
	s = reUniqueName.ReplaceAllString(s, "")
	s = reUID.ReplaceAllString(s, "")
	s = reCSIName.ReplaceAllString(s, "…^")
	s = reInTreeName.ReplaceAllString(s, "…/$1")
	s = reUUIDShort.ReplaceAllString(s, "${1}…")
	return strings.TrimSpace(s)
}

// sameMessage reduces an evidence message to what repeats across a retry
// loop: no numbers, no backoff.
func sameMessage(s string) string {
	s = reRetryIn.ReplaceAllString(s, "")
	return reDigits.ReplaceAllString(s, "#")
}

// window cuts s to max cells around the first of keys (then excerptKeys)
// found, with "…" where text was cut; the start stays when no key is found
// or the key is near the start.
func window(s string, max int, keys ...string) string {
	if ansi.StringWidth(s) <= max {
		return s
	}
	k := -1
	for _, key := range append(keys, excerptKeys...) {
		if key == "" {
			continue
		}
		if i := strings.Index(s, key); i >= 0 {
			k = i
			break
		}
	}
	startCells := 0
	if k >= 0 {
		startCells = ansi.StringWidth(s[:k]) - max/3
	}
	if startCells <= 0 {
		return truncate(s, max)
	}
	// Keep the subject ("… failed for volume "x" from node "n" : ") whole
	// when it is short, and cut between it and the cause.
	if h := strings.Index(s, " : "); h > 0 && h < k && ansi.StringWidth(s[:h+3]) < max/2 {
		head := s[:h+3]
		return head + window(s[h+3:], max-ansi.StringWidth(head), keys...)
	}
	cut := ansi.TruncateLeft(s, startCells+1, "")
	return "…" + truncate(cut, max-1)
}

var (
	reKlogHeader = regexp.MustCompile(`^[IWEF]\d{4} \d\d:\d\d:\d\d(?:\.\d+)? +\d+ [^ \]]+\] ?`)
	reRetryWrap  = regexp.MustCompile(`^Operation for "[^"]*" failed\. No retries permitted until [^(]*\(durationBeforeRetry ([^)]+)\)\.? ?[Ee]rror: (.*)$`)
	reRetryIn    = regexp.MustCompile(` \(retry in [^)]*\)`)
	reUID        = regexp.MustCompile(` \(UID: "[^"]*"\)`)
	reCSIName    = regexp.MustCompile(`kubernetes\.io/csi/[^"\s^}]+\^`)
	reInTreeName = regexp.MustCompile(`kubernetes\.io/[a-z0-9-]+/[^"\s}]*/([^/"\s}]+)`)
	reDigits     = regexp.MustCompile(`[0-9a-fA-F]*[0-9][0-9a-fA-F]*`)
	reUniqueName = regexp.MustCompile(` ?\(UniqueName: \\?"[^"\\]*\\?"\)`)
	reUUIDShort  = regexp.MustCompile(`(?i)\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
)

// wrap word-wraps s to width cells and returns the lines; words longer
// than a line are cut.
func wrap(s string, width int) []string {
	if width < 10 {
		width = 10
	}
	var lines []string
	var cur strings.Builder
	curW := 0
	for _, word := range strings.Fields(s) {
		ww := ansi.StringWidth(word)
		for ww > width {
			if curW > 0 {
				lines = append(lines, cur.String())
				cur.Reset()
				curW = 0
			}
			part := ansi.Truncate(word, width, "")
			lines = append(lines, part)
			word = word[len(part):]
			ww = ansi.StringWidth(word)
		}
		if ww == 0 {
			continue
		}
		if curW > 0 && curW+1+ww > width {
			lines = append(lines, cur.String())
			cur.Reset()
			curW = 0
		}
		if curW > 0 {
			cur.WriteByte(' ')
			curW++
		}
		cur.WriteString(word)
		curW += ww
	}
	if curW > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// padRight pads s with spaces to width display cells.
func padRight(s string, width int) string {
	w := ansi.StringWidth(s)
	if w >= width {
		return s
	}
	return s + strings.Repeat(" ", width-w)
}

// volumeLabel is the name a human knows a volume by: the PV, else the handle, else the key.
func volumeLabel(v *timeline.Volume) string {
	switch {
	case v == nil:
		return "?"
	case v.PV != "":
		return v.PV
	case v.Handle != "":
		return v.Handle
	case v.Key != "":
		return v.Key
	}
	return v.UniqueName
}

// findVolume returns the timeline volume a finding or incident names.
func findVolume(tl *timeline.Timeline, name, pv string) *timeline.Volume {
	if tl == nil {
		return nil
	}
	for _, v := range tl.Volumes {
		if name != "" && (v.Key == name || v.UniqueName == name) {
			return v
		}
	}
	for _, v := range tl.Volumes {
		for _, n := range v.Names {
			if n == name && name != "" || n == pv && pv != "" {
				return v
			}
		}
		if pv != "" && v.PV == pv {
			return v
		}
	}
	return nil
}

// plural is "1 finding" / "4 findings".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}
