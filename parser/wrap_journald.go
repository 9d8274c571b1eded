package parser

import (
	"bytes"
	"strconv"
	"time"
)

// This file owns the journald wrapper: journalctl's short text forms,
// "STAMP host proc[pid]: msg", where STAMP is
//
//   - short / short-precise: "Aug 12 03:14:11[.301223]" (also with the
//     month abbreviation of a German, French, Spanish, Italian, Portuguese,
//     Dutch or Russian locale, or a CJK "8月" / "8월");
//   - short-full / with-unit: "Mon 2024-08-12 03:14:11 UTC" (with-unit
//     writes the unit, "kubelet.service[2783]", which counts as "kubelet");
//   - short-unix: "1723432451.301223" (seconds since the epoch, UTC);
//
// optionally after a Kubernetes node name and a blank ("node-1 Aug 12 …",
// `oc adm node-logs` for several nodes). The short-iso form is decoded by
// the RFC 3339 decoder (wrap_rfc3339.go), which hands its tail to
// journaldTail.

var journaldWrapper = wrapper{
	name: "journald",
	// month and weekday names, localized month names (Cyrillic lead
	// bytes), short-unix and CJK digits, node names
	firsts: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789\xd0\xd1",
	claims: func(line []byte) bool { return journaldStampAt(line) >= 0 },
	decode: func(_ *unwrapper, line []byte, out *unwrapped) bool { return unwrapJournald(line, out) },
	time:   journaldTime,
}

var monthNames = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// monthIndex is the English month abbreviation at p's start (1-12), or 0.
func monthIndex(p []byte) int {
	if len(p) < 3 {
		return 0
	}
	for i, m := range monthNames {
		if p[0] == m[0] && p[1] == m[1] && p[2] == m[2] {
			return i + 1
		}
	}
	return 0
}

// localMonths are glibc's abbreviated month names (%b) of common locales
// (de, fr, es, it, pt, nl, ru), lower case and without a trailing ".",
// where they differ from the English ones.
var localMonths = map[string]int{
	"mär": 3, "mai": 5, "okt": 10, "dez": 12, // de (Mai, Dez also pt)
	"janv": 1, "févr": 2, "mars": 3, "avr": 4, "avril": 4, "juin": 6, "juil": 7, "août": 8, "sept": 9, "déc": 12, // fr
	"ene": 1, "abr": 4, "ago": 8, "dic": 12, // es (abr, ago also pt, it)
	"gen": 1, "mag": 5, "giu": 6, "lug": 7, "set": 9, "ott": 10, // it
	"fev": 2, "out": 10, // pt
	"mrt": 3, "mei": 5, // nl
	"янв": 1, "фев": 2, "мар": 3, "апр": 4, "мая": 5, "май": 5, "июн": 6, "июл": 7, "авг": 8, "сен": 9, "окт": 10, "ноя": 11, "дек": 12,
}

// monthWord reads the month of a syslog stamp at p's start: an English or
// localized abbreviation, or a CJK "8月" / "12월". It returns the month and
// the length of the word (its trailing "." included), or 0, 0.
func monthWord(p []byte) (mon, n int) {
	if m := monthIndex(p); m > 0 && len(p) > 3 && p[3] == ' ' {
		return m, 3
	}
	if len(p) < 3 {
		return 0, 0
	}
	if isDigit(p[0]) {
		i := 1
		if isDigit(p[1]) {
			i = 2
		}
		m := int(p[0] - '0')
		if i == 2 {
			m = m*10 + int(p[1]-'0')
		}
		if m < 1 || m > 12 || len(p) < i+3 {
			return 0, 0
		}
		if s := string(p[i : i+3]); s == "月" || s == "월" {
			return m, i + 3
		}
		return 0, 0
	}
	sp := bytes.IndexByte(p[:min(len(p), 9)], ' ')
	if sp < 3 {
		return 0, 0
	}
	var low [8]byte
	w := p[:sp]
	if w[len(w)-1] == '.' {
		w = w[:len(w)-1]
	}
	if len(w) > len(low) {
		return 0, 0
	}
	for i, c := range w {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	if m := localMonths[string(low[:len(w)])]; m > 0 {
		return m, sp
	}
	return 0, 0
}

// journaldStampEnd returns the length of a journald short-* stamp at p's
// start (short, short-precise, short-full, short-unix), or 0. The stamp is
// followed by a blank.
func journaldStampEnd(p []byte) int {
	if len(p) < 16 {
		return 0
	}
	if isDigit(p[0]) {
		if n := unixStampEnd(p); n > 0 {
			return n
		}
	}
	if n := fullStampEnd(p); n > 0 {
		return n
	}
	_, i := monthWord(p)
	if i == 0 || i >= len(p) || p[i] != ' ' {
		return 0
	}
	i++
	if i < len(p) && p[i] == ' ' {
		i++
	}
	d := i
	for i < len(p) && isDigit(p[i]) {
		i++
	}
	if i == d || i-d > 2 || i >= len(p) || p[i] != ' ' {
		return 0
	}
	return clockEnd(p, i+1)
}

// clockEnd returns the end of "hh:mm:ss[.frac]" at p[i:] when a blank
// follows it, or 0.
func clockEnd(p []byte, i int) int {
	if i+9 > len(p) || p[i+2] != ':' || p[i+5] != ':' || !isDigit(p[i]) || !isDigit(p[i+1]) || !isDigit(p[i+7]) {
		return 0
	}
	i += 8
	if p[i] == '.' {
		i++
		f := i
		for i < len(p) && isDigit(p[i]) {
			i++
		}
		if i == f {
			return 0
		}
	}
	if i >= len(p) || p[i] != ' ' {
		return 0
	}
	return i
}

// unixStampEnd returns the end of short-unix's "1723432451.301223", or 0.
func unixStampEnd(p []byte) int {
	i := leadingDigits(p[:min(len(p), 12)])
	if i < 9 || i > 11 || i >= len(p) || p[i] != '.' {
		return 0
	}
	j := i + 1 + leadingDigits(p[i+1:min(len(p), i+10)])
	if j == i+1 || j >= len(p) || p[j] != ' ' {
		return 0
	}
	return j
}

var weekdays = [...]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// fullStampEnd returns the end of short-full's "Mon 2024-08-12 03:14:11 UTC"
// (the zone an abbreviation or a numeric offset), or 0.
func fullStampEnd(p []byte) int {
	if len(p) < 28 || p[3] != ' ' || p[8] != '-' || p[11] != '-' || p[14] != ' ' {
		return 0
	}
	wd := false
	for _, w := range weekdays {
		if p[0] == w[0] && p[1] == w[1] && p[2] == w[2] {
			wd = true
			break
		}
	}
	if !wd || !isDigit(p[4]) || !isDigit(p[7]) || !isDigit(p[9]) || !isDigit(p[13]) {
		return 0
	}
	i := clockEnd(p, 15)
	if i == 0 {
		return 0
	}
	z := i + 1
	j := z
	for j < len(p) && j-z <= 6 && (p[j] >= 'A' && p[j] <= 'Z' || isDigit(p[j]) || p[j] == '+' || p[j] == '-') {
		j++
	}
	if j == z || j >= len(p) || p[j] != ' ' {
		return 0
	}
	return j
}

// journaldStampAt returns where a journald short-* stamp starts in line:
// 0, or after a node-name prefix ("node-1 "), or -1 when there is none.
func journaldStampAt(line []byte) int {
	if journaldStampEnd(line) > 0 {
		return 0
	}
	i := dnsName(line) // a node name
	if i == 0 || i >= len(line) || line[i] != ' ' || journaldStampEnd(line[i+1:]) == 0 {
		return -1
	}
	return i + 1
}

// unwrapJournald decodes "STAMP host proc[pid]: msg" (the short-* forms),
// optionally after a node name.
func unwrapJournald(line []byte, out *unwrapped) bool {
	at := journaldStampAt(line)
	if at < 0 {
		return false
	}
	n := at + journaldStampEnd(line[at:])
	return journaldTail(line, line[at:n], n+1, out)
}

// journaldTail decodes "host proc[pid]: msg" starting at i.
func journaldTail(line, ts []byte, i int, out *unwrapped) bool {
	if i >= len(line) {
		return false
	}
	sp := bytes.IndexByte(line[i:], ' ')
	if sp <= 0 {
		return false
	}
	host := line[i : i+sp]
	j := i + sp + 1
	colon := bytes.Index(line[j:min(len(line), j+128)], []byte(": "))
	if colon <= 0 {
		// "proc[pid]:" at the very end (empty message)
		if bytes.HasSuffix(line, []byte(":")) && j < len(line)-1 {
			colon = len(line) - 1 - j
		} else {
			return false
		}
	}
	tag := line[j : j+colon]
	if bytes.IndexByte(tag, ' ') >= 0 {
		return false
	}
	proc := tag
	if b := bytes.IndexByte(tag, '['); b >= 0 {
		if !bytes.HasSuffix(tag, []byte("]")) {
			return false
		}
		proc = tag[:b]
	}
	// with-unit names the unit: "kubelet.service" is the kubelet
	proc = bytes.TrimSuffix(proc, []byte(".service"))
	out.kind = wrapJournald
	out.ts = ts
	out.host = host
	out.proc = proc
	if j+colon+2 <= len(line) {
		out.payload = line[j+colon+2:]
	} else {
		out.payload = line[len(line):]
	}
	return true
}

// journaldTime reads a journald stamp: RFC 3339 (short-iso), short-unix
// and short-full (absolute when the zone is UTC, a known abbreviation or
// an offset; a wall clock with its year otherwise), or a syslog wall clock
// without a year (short, short-precise).
func journaldTime(ts []byte) (wt wrapTime, ok bool) {
	if rfc3339End(ts) == len(ts) {
		return stampTime(ts)
	}
	if n := unixStampEnd(append(ts[:len(ts):len(ts)], ' ')); n == len(ts) {
		dot := bytes.IndexByte(ts, '.')
		sec, err1 := strconv.ParseInt(string(ts[:dot]), 10, 64)
		frac := ts[dot+1:]
		us, err2 := strconv.ParseInt(string(frac), 10, 64)
		if err1 != nil || err2 != nil || len(frac) > 9 {
			return wt, false
		}
		for k := len(frac); k < 9; k++ {
			us *= 10
		}
		wt.abs = time.Unix(sec, us).UTC()
		return wt, plausibleYear(wt.abs.Year())
	}
	if fullStampEnd(append(ts[:len(ts):len(ts)], ' ')) == len(ts) {
		return fullTime(ts)
	}
	mon, n := monthWord(ts)
	if mon == 0 {
		return wt, false
	}
	f := bytes.Fields(ts[n:])
	if len(f) != 2 || len(f[1]) < 8 {
		return wt, false
	}
	d, err := strconv.Atoi(string(f[0]))
	if err != nil {
		return wt, false
	}
	w, ok := clockOf(f[1])
	if !ok {
		return wt, false
	}
	w.mon, w.day = mon, d
	wt.w = w
	return wt, wt.w.valid()
}

// clockOf reads "hh:mm:ss[.frac]" into a wall's clock fields.
func clockOf(c []byte) (w wall, ok bool) {
	h, ok1 := num(c, 0, 2)
	mi, ok2 := num(c, 3, 2)
	se, ok3 := num(c, 6, 2)
	if !ok1 || !ok2 || !ok3 {
		return w, false
	}
	w.hour, w.min, w.sec = h, mi, se
	if len(c) > 9 && c[8] == '.' {
		scale := 100000000
		for _, b := range c[9:min(len(c), 18)] {
			w.nsec += int(b-'0') * scale
			scale /= 10
		}
	}
	return w, true
}

// zoneOffsets are the zone abbreviations short-full may print that name
// one offset only (CST, IST and the like are ambiguous and left out).
var zoneOffsets = map[string]int{
	"UTC": 0, "GMT": 0, "UCT": 0, "Z": 0, "WET": 0, "WEST": 1, "CET": 1, "CEST": 2, "EET": 2, "EEST": 3, "MSK": 3,
	"HKT": 8, "SGT": 8, "JST": 9, "KST": 9, "AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13,
	"EST": -5, "EDT": -4, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
}

// fullTime reads short-full's "Mon 2024-08-12 03:14:11[.frac] ZONE".
func fullTime(ts []byte) (wt wrapTime, ok bool) {
	y, ok1 := num(ts, 4, 4)
	mo, ok2 := num(ts, 9, 2)
	d, ok3 := num(ts, 12, 2)
	sp := bytes.LastIndexByte(ts, ' ')
	w, ok4 := clockOf(ts[15:sp])
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return wt, false
	}
	w.mon, w.day = mo, d
	if !w.valid() || !plausibleYear(y) {
		return wt, false
	}
	zone := string(ts[sp+1:])
	off, known := zoneOffsets[zone]
	secs := off * 3600
	if !known && (zone[0] == '+' || zone[0] == '-') {
		// "+08", "+0530"
		h, okh := num(ts, sp+2, 2)
		m := 0
		if len(zone) == 5 {
			m, known = num(ts, sp+4, 2)
		} else {
			known = len(zone) == 3
		}
		known = known && okh
		secs = h*3600 + m*60
		if zone[0] == '-' {
			secs = -secs
		}
	}
	if !known {
		wt.w, wt.year = w, y
		return wt, true
	}
	wt.abs = time.Date(y, time.Month(mo), d, w.hour, w.min, w.sec, w.nsec, time.FixedZone(zone, secs))
	return wt, true
}

// stampTime decodes an RFC 3339 wrapper timestamp (CRI, kubectl
// --timestamps, docker, short-iso journald).
func stampTime(ts []byte) (wt wrapTime, ok bool) {
	if !isDigit(ts[0]) {
		return wt, false
	}
	s := string(ts)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999-0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			wt.abs = t
			return wt, true
		}
	}
	return wt, false
}
