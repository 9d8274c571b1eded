package envelope

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"time"
)

// journaldJSONEnvelope reads `journalctl -o json` (and json-seq-less
// json-pretty): one entry per line, MESSAGE a string or, when it holds
// control characters or invalid UTF-8, an array of byte values;
// __REALTIME_TIMESTAMP in microseconds.
var journaldJSONEnvelope = &Envelope{
	Name: "journald-json",
	Doc:  "systemd journal JSON (journalctl -o json / json-pretty)",
	shapes: []shape{{
		name: "json",
		score: func(s *sample) int {
			if s.has(`"insertId"`) {
				return 0 // a GCP LogEntry carrying journald fields
			}
			return jsonScore(s, []string{`"__REALTIME_TIMESTAMP"`, `"MESSAGE"`}, []string{`"_HOSTNAME"`, `"SYSLOG_IDENTIFIER"`, `"__CURSOR"`, `"_SYSTEMD_UNIT"`})
		},
		decode: journaldDoc.decodeJSON,
	}},
}

// journaldExportEnvelope reads `journalctl -o export`: KEY=value lines, a
// blank line after each entry; a value with a newline or other binary
// content is "KEY\n", a little-endian 64-bit length, the bytes and "\n".
var journaldExportEnvelope = &Envelope{
	Name: "journald-export",
	Doc:  "systemd journal export format (journalctl -o export)",
	shapes: []shape{{
		name:   "export",
		score:  journaldExportScore,
		decode: decodeJournaldExport,
	}},
}

var journaldDoc = &docSpec{fields: &fieldMap{
	time:  []timeField{{path: "__REALTIME_TIMESTAMP", unit: time.Microsecond}, {path: "_SOURCE_REALTIME_TIMESTAMP", unit: time.Microsecond}},
	msg:   []string{"MESSAGE"},
	level: []string{"PRIORITY"},
	id:    []string{"__CURSOR"},
	label: [numLabels][]string{
		lComponent: {"SYSLOG_IDENTIFIER", "_COMM"},
		lHost:      {"_HOSTNAME"},
		lUnit:      {"_SYSTEMD_UNIT", "UNIT"},
		lPod:       {"CONTAINER_NAME"},
	},
}}

func journaldExportScore(s *sample) int {
	if !s.has("\n__REALTIME_TIMESTAMP=") && !bytes.HasPrefix(s.data, []byte("__REALTIME_TIMESTAMP=")) && !bytes.HasPrefix(s.data, []byte("__CURSOR=")) {
		return 0
	}
	return max(lineScore(s, func(l []byte) bool {
		i := bytes.IndexByte(l, '=')
		if i <= 0 {
			return false
		}
		for _, c := range l[:i] {
			if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' {
				return false
			}
		}
		return true
	}), 60)
}

// decodeJournaldExport reads the export format entry by entry.
func decodeJournaldExport(d *decoder, br *bufio.Reader) error {
	line := 0 // lines consumed so far
	obj := map[string]any{}
	start := 0
	flush := func() error {
		if len(obj) == 0 {
			return nil
		}
		r, ok := journaldDoc.fields.record(d, mapObject(obj), start)
		obj = map[string]any{}
		if !ok {
			return nil
		}
		return d.emit(r)
	}
	for {
		l, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			buf := append([]byte(nil), l...)
			for err == bufio.ErrBufferFull && len(buf) <= MaxLineBytes {
				l, err = br.ReadSlice('\n')
				buf = append(buf, l...)
			}
			l = buf
		}
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return err
		}
		if len(l) == 0 && err == io.EOF {
			d.st.Lines = line
			return flush()
		}
		line++
		body := bytes.TrimSuffix(l, []byte("\n"))
		switch {
		case len(body) == 0:
			if ferr := flush(); ferr != nil {
				return ferr
			}
		case bytes.IndexByte(body, '=') >= 0:
			if len(obj) == 0 {
				start = line
			}
			k, v, _ := bytes.Cut(body, []byte("="))
			obj[string(k)] = string(v)
		default:
			// A binary field: the name alone, then its length and bytes.
			if len(obj) == 0 {
				start = line
			}
			var n [8]byte
			if _, rerr := io.ReadFull(br, n[:]); rerr != nil {
				d.cutOff(line, "journal export cut off in the length of field %s", clip(string(body)))
				d.st.Lines = line
				return flush()
			}
			size := binary.LittleEndian.Uint64(n[:])
			if size > MaxLineBytes {
				d.problem(line, "journal export field %s claims %d bytes; the rest of the input is skipped", clip(string(body)), size)
				d.st.Lines = line
				return flush()
			}
			// Read as the bytes come, so a false length costs no memory.
			v, rerr := io.ReadAll(io.LimitReader(br, int64(size)+1))
			if rerr != nil {
				return rerr
			}
			if uint64(len(v)) != size+1 {
				d.cutOff(line, "journal export cut off inside field %s", clip(string(body)))
				d.st.Lines = line
				return flush()
			}
			line += bytes.Count(n[:], []byte("\n")) + bytes.Count(v, []byte("\n"))
			if v[size] != '\n' {
				d.problem(line, "journal export field %s does not end with a newline", clip(string(body)))
			}
			obj[string(body)] = string(v[:size])
		}
		if err == io.EOF {
			d.st.Lines = line
			return flush()
		}
	}
}
