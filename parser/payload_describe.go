package parser

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// tableLayout is the kind of event table being read.
type tableLayout uint8

const (
	tableNone      tableLayout = iota
	tableDescribe              // kubectl describe "Type Reason Age From Message" (≤1.19 and ≥1.20)
	tableOld                   // kubectl ≤1.4 TAB-separated "FirstSeen LastSeen Count From SubobjectPath Type Reason Message"
	tableGetEvents             // kubectl get events "LAST SEEN TYPE REASON OBJECT MESSAGE" and wider variants
	tableBare                  // the message column alone: an event message pasted without its table (payload_eventmsg.go)
)

// tableState remembers the table header seen last in an input.
type tableState struct {
	layout tableLayout
	cols   []tableCol // get events: header columns by byte offset
}

type tableCol struct {
	name  string
	start int
}

// tableRowParse is one decoded row plus its relative times.
type tableRowParse struct {
	row     tableRow
	age     time.Duration // time from the last occurrence to the snapshot
	ageOK   bool
	span    time.Duration // first → last occurrence
	node    string        // from "kubelet, <node>" / "{kubelet <node>}"
	layout  tableLayout
	object  string
	ageText string // the Age column as printed
	wrapped bool   // continuation lines were appended to the message
	more    []byte // the message with its continuation lines, when wrapped
}

// isTableHeader reports whether p is an "Events:" line, a column header or a
// "----" rule; it updates st for column headers.
func isTableHeader(p []byte, st *tableState) bool {
	t := bytes.TrimSpace(p)
	if len(t) == 0 {
		return false
	}
	switch {
	case bytes.Equal(t, []byte("Events:")), bytes.Equal(t, []byte("Events:  <none>")), bytes.HasPrefix(t, []byte("Events:")) && len(bytes.TrimSpace(t[7:])) == 0:
		st.layout = tableDescribe
		return true
	case bytes.HasPrefix(t, []byte("----")) || bytes.HasPrefix(t, []byte("---------\t")):
		return st.layout != tableNone || bytes.Count(t, []byte("-")) > len(t)/2
	case bytes.HasPrefix(t, []byte("Type")) && bytes.Contains(t, []byte("Reason")) && bytes.Contains(t, []byte("Message")):
		st.layout = tableDescribe
		return true
	case bytes.HasPrefix(t, []byte("FirstSeen")) && bytes.Contains(t, []byte("LastSeen")):
		st.layout = tableOld
		return true
	case bytes.HasPrefix(t, []byte("LAST SEEN")) && bytes.Contains(t, []byte("REASON")) && bytes.Contains(t, []byte("MESSAGE")):
		st.layout = tableGetEvents
		st.cols = st.cols[:0]
		for _, name := range []string{"LAST SEEN", "FIRST SEEN", "COUNT", "NAME", "KIND", "SUBOBJECT", "TYPE", "REASON", "OBJECT", "SOURCE", "MESSAGE"} {
			if i := bytes.Index(p, []byte(name)); i >= 0 {
				st.cols = append(st.cols, tableCol{name: name, start: i})
			}
		}
		sortCols(st.cols)
		return true
	}
	return false
}

func sortCols(c []tableCol) {
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j].start < c[j-1].start; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}

// parseAge decodes kubectl's HumanDuration ("28s", "4m12s", "77m", "5h30m",
// "2d3h", "3y12d"). "<unknown>" and "<invalid>" are not ages.
func parseAge(s string) (time.Duration, bool) {
	if s == "" {
		return 0, false
	}
	var total time.Duration
	n := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isDigit(c) {
			if n < 0 {
				n = 0
			}
			n = n*10 + int(c-'0')
			if n > 1e6 {
				return 0, false
			}
			continue
		}
		if n < 0 {
			return 0, false
		}
		var u time.Duration
		switch c {
		case 's':
			u = time.Second
		case 'm':
			u = time.Minute
		case 'h':
			u = time.Hour
		case 'd':
			u = 24 * time.Hour
		case 'y':
			u = 365 * 24 * time.Hour
		default:
			return 0, false
		}
		total += time.Duration(n) * u
		n = -1
	}
	if n >= 0 {
		return 0, false
	}
	return total, true
}

// parseAgeField decodes "28s", "28s (x9 over 4m12s)" or "<unknown>".
func parseAgeField(s string) (age time.Duration, count int, over time.Duration, ok bool, hasOver bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "<unknown>") || strings.HasPrefix(s, "<invalid>") {
		ok = false
		s = strings.TrimSpace(s[9:])
		if s == "" {
			return 0, 0, 0, false, false
		}
	} else {
		head, tail, _ := strings.Cut(s, " ")
		age, ok = parseAge(head)
		if !ok {
			return 0, 0, 0, false, false
		}
		s = strings.TrimSpace(tail)
	}
	if s == "" {
		return age, 0, 0, ok, false
	}
	// "(x9 over 4m12s)"
	if !strings.HasPrefix(s, "(x") || !strings.HasSuffix(s, ")") {
		return 0, 0, 0, false, false
	}
	inner := s[2 : len(s)-1]
	cs, os, found := strings.Cut(inner, " over ")
	if !found {
		return 0, 0, 0, false, false
	}
	c, err := strconv.Atoi(cs)
	if err != nil {
		return 0, 0, 0, false, false
	}
	over, okOver := parseAge(os)
	return age, c, over, ok, okOver
}

// splitWide splits s on runs of two or more blanks (or a TAB) into at most n
// fields followed by the untouched rest.
func splitWide(s string, n int) (fields []string, rest string) {
	i := 0
	for len(fields) < n {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return fields, ""
		}
		j := i
		for j < len(s) {
			if s[j] == '\t' || (s[j] == ' ' && j+1 < len(s) && (s[j+1] == ' ' || s[j+1] == '\t')) {
				break
			}
			j++
		}
		fields = append(fields, s[i:j])
		i = j
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return fields, s[i:]
}

func isEventType(s string) bool { return s == "Normal" || s == "Warning" }

// fromNode splits "kubelet, node" into component and node.
func fromNode(from string) (string, string) {
	if c, n, ok := strings.Cut(from, ", "); ok {
		return c, strings.TrimSpace(n)
	}
	return from, ""
}

// parseDescribeRows decodes a `kubectl describe` row; several rows collapsed
// onto one physical line (real-logs/008) come back as several rows.
func parseDescribeRows(p []byte) []tableRowParse {
	s := string(p)
	lead := len(s) - len(strings.TrimLeft(s, " \t"))
	if lead > 8 {
		return nil
	}
	r, ok := parseDescribeRow(s)
	if !ok {
		return nil
	}
	rows := []tableRowParse{r}
	// collapsed rows: "…message  Warning  FailedAttachVolume     1m    from  message…"
	for {
		last := &rows[len(rows)-1]
		msg := last.row.Message
		found := false
		for off := 0; off < len(msg); {
			k := indexAny2(msg[off:], "  Warning  ", "  Normal  ")
			if k < 0 {
				break
			}
			k += off
			if next, ok := parseDescribeRow(msg[k:]); ok {
				last.row.Message = strings.TrimSpace(msg[:k])
				rows = append(rows, next)
				found = true
				break
			}
			off = k + 2
		}
		if !found {
			return rows
		}
	}
}

func indexAny2(s, a, b string) int {
	i, j := strings.Index(s, a), strings.Index(s, b)
	switch {
	case i < 0:
		return j
	case j < 0:
		return i
	}
	return min(i, j)
}

func parseDescribeRow(s string) (tableRowParse, bool) {
	var r tableRowParse
	f, rest := splitWide(s, 4)
	if len(f) < 4 || !isEventType(f[0]) {
		return r, false
	}
	age, count, over, ok, hasOver := parseAgeField(f[2])
	if !ok && !strings.HasPrefix(f[2], "<") {
		return r, false
	}
	r.layout = tableDescribe
	r.ageText = f[2]
	r.row = tableRow{Type: f[0], Reason: f[1], From: f[3], Message: strings.TrimSpace(rest), Count: count}
	r.age, r.ageOK = age, ok
	if hasOver && over >= age {
		r.span = over - age
	}
	_, r.node = fromNode(f[3])
	return r, true
}

// parseOldRow decodes a kubectl ≤1.4 TAB-separated row:
// FirstSeen LastSeen Count From [SubobjectPath] Type Reason Message.
func parseOldRow(p []byte) (tableRowParse, bool) {
	var r tableRowParse
	raw := strings.Split(string(p), "\t")
	var f []string
	for _, x := range raw {
		if x = strings.TrimSpace(x); x != "" {
			f = append(f, x)
		}
	}
	if len(f) < 6 {
		return r, false
	}
	last, ok1 := parseAge(f[1])
	first, ok2 := parseAge(f[0])
	count, err := strconv.Atoi(f[2])
	if !ok1 || !ok2 || err != nil {
		return r, false
	}
	ti := -1
	for i := 3; i < len(f) && i <= 5; i++ {
		if isEventType(f[i]) {
			ti = i
			break
		}
	}
	if ti < 0 || ti+1 >= len(f) {
		return r, false
	}
	from := strings.TrimSpace(strings.Trim(f[3], "{}"))
	if c, n, ok := strings.Cut(from, " "); ok && strings.TrimSpace(n) != "" {
		from = c + ", " + strings.TrimSpace(n)
	}
	msg := ""
	if ti+2 < len(f) {
		msg = strings.Join(f[ti+2:], "\t")
	}
	r.layout = tableOld
	r.row = tableRow{Type: f[ti], Reason: f[ti+1], From: from, Message: msg, Count: count}
	r.age, r.ageOK = last, true
	if first >= last {
		r.span = first - last
	}
	_, r.node = fromNode(from)
	return r, true
}

// parseGetEventsRow decodes a `kubectl get events` row using the header's
// column offsets, falling back to splitting on wide blanks.
func parseGetEventsRow(p []byte, st *tableState) (tableRowParse, bool) {
	var r tableRowParse
	s := string(p)
	get := map[string]string{}
	aligned := true
	for i, c := range st.cols {
		if c.start > len(s) || (c.start > 0 && c.start <= len(s) && s[c.start-1] != ' ') {
			aligned = false
			break
		}
		end := len(s)
		if i+1 < len(st.cols) && st.cols[i+1].start < len(s) {
			end = st.cols[i+1].start
		}
		if c.name == "MESSAGE" && i+1 < len(st.cols) {
			// wide output: the message is padded to the widest message; keep as is
		}
		get[c.name] = strings.TrimSpace(s[c.start:end])
	}
	if !aligned || !isEventType(get["TYPE"]) {
		f, rest := splitWide(s, len(st.cols)-1)
		if len(f) < len(st.cols)-1 {
			return r, false
		}
		get = map[string]string{}
		for i, c := range st.cols[:len(st.cols)-1] {
			get[c.name] = f[i]
		}
		get[st.cols[len(st.cols)-1].name] = rest
		if !isEventType(get["TYPE"]) {
			return r, false
		}
	}
	age, ok := parseAge(get["LAST SEEN"])
	if !ok && !strings.HasPrefix(get["LAST SEEN"], "<") {
		return r, false
	}
	count, _ := strconv.Atoi(get["COUNT"])
	object := get["OBJECT"]
	if object == "" && get["NAME"] != "" {
		object = strings.ToLower(get["KIND"]) + "/" + get["NAME"]
	}
	from := get["SOURCE"]
	r.layout = tableGetEvents
	r.row = tableRow{Type: get["TYPE"], Reason: get["REASON"], Object: object, From: from, Message: get["MESSAGE"], Count: count}
	r.age, r.ageOK = age, ok
	if first, ok := parseAge(get["FIRST SEEN"]); ok && first >= age {
		r.span = first - age
	}
	_, r.node = fromNode(from)
	r.object = object
	return r, true
}

// isTableRowStart reports whether p starts a new row of the current table.
func isOldRowStart(p []byte) bool {
	t := bytes.TrimLeft(p, " ")
	tab := bytes.IndexByte(t, '\t')
	if tab <= 0 {
		return false
	}
	_, ok := parseAge(string(t[:tab]))
	return ok
}

// This file owns the scanner's side of event tables: the pod a `kubectl
// describe` header names, recognising rows, and turning a row into an
// event.

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
	sc.finishEvent(&ev, e)
	if ev.Count == 0 && row.Count > 1 {
		ev.Count = Int32(row.Count)
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
	rowDefaults(&ev, &row, r.object)
	m := evMeta{}
	if !e.abs.IsZero() {
		// a Kubernetes Event record's own time (event-exporter)
		m.setAbs(e.abs)
	}
	if r.ageOK {
		m.age, m.hasAge = r.age, true
		ev.Age = r.age
	}
	st.addEvent(&ev, m, text)
	return true
}

// rowText renders one of several rows collapsed on one physical line.
func rowText(r *tableRowParse) string {
	return fmt.Sprintf("%s  %s  %s  %s  %s", r.row.Type, r.row.Reason, r.ageText, r.row.From, r.row.Message)
}
