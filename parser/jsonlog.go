package parser

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// looksJSONLog reports whether payload is a --logging-format=json line: an
// object whose first keys include "ts" (zap's order puts it first) or "msg".
func looksJSONLog(p []byte) bool {
	if len(p) < 8 || p[0] != '{' {
		return false
	}
	head := p[:min(len(p), 96)]
	return bytes.Contains(head, []byte(`"ts":`)) || bytes.Contains(p, []byte(`"msg":`))
}

// jsonTS reads the "ts" value (float milliseconds since the epoch) without
// decoding the whole object.
func jsonTS(p []byte) (time.Time, bool) {
	i := bytes.Index(p, []byte(`"ts":`))
	if i < 0 {
		return time.Time{}, false
	}
	v := p[i+5:]
	j := 0
	for j < len(v) && (isDigit(v[j]) || v[j] == '.' || v[j] == 'e' || v[j] == 'E' || v[j] == '+' || v[j] == '-') {
		j++
	}
	num := v[:j]
	// exact decimal decoding: float64 cannot hold 13 digits of ms plus 6 of ns
	if dot := bytes.IndexByte(num, '.'); bytes.IndexAny(num, "eE+-") < 0 && (dot < 0 || dot > 0) {
		intPart, frac := num, []byte(nil)
		if dot > 0 {
			intPart, frac = num[:dot], num[dot+1:]
		}
		ms, err := strconv.ParseInt(string(intPart), 10, 64)
		if err == nil && ms <= 1e15 {
			ns := int64(0)
			for i := 0; i < 6; i++ {
				ns *= 10
				if i < len(frac) && isDigit(frac[i]) {
					ns += int64(frac[i] - '0')
				}
			}
			t := time.UnixMilli(ms).Add(time.Duration(ns)).UTC()
			return t, plausibleYear(t.Year())
		}
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e15 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f / 1000)
	t := time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
	return t, plausibleYear(t.Year())
}

// decodeJSONLog fills rec from one JSON log line: Msg, KV (in order, duplicate
// keys kept, strings unquoted, other values as raw JSON), Level ('I' when "v"
// is present, 'E' otherwise: Error lines carry no "v"), File (caller basename).
func decodeJSONLog(p []byte, rec *record) error {
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return errNotObject
	}
	hasV := false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		val := string(raw)
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				val = s
			}
		}
		switch key {
		case "msg":
			rec.Msg = strings.TrimSpace(val)
			continue
		case "ts":
			continue
		case "caller":
			f := val
			if c := strings.LastIndexByte(f, ':'); c >= 0 {
				f = f[:c]
			}
			if s := strings.LastIndexByte(f, '/'); s >= 0 {
				f = f[s+1:]
			}
			rec.File = f
			continue
		case "v":
			hasV = true
		}
		rec.KV = append(rec.KV, kv{Key: key, Value: val})
	}
	if hasV {
		rec.Level = 'I'
	} else {
		rec.Level = 'E'
	}
	return nil
}

type jsonError string

func (e jsonError) Error() string { return string(e) }

const errNotObject = jsonError("not a JSON object")
