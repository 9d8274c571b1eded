package parser

import "bytes"

// This file owns the pod-prefix wrapper: the pod (and container) name that
// multi-pod log tailers put before every line — kubetail "[pod-name] ",
// kubectl logs --prefix "[pod/name/container] ", stern's default
// "pod-name container-name " and its bracketed form "[pod-name
// container-name] ". The container name, or the pod name when there is
// none, counts as the process name (kube-controller-manager, kubelet) for
// the input's component. kubectl logs --prefix --timestamps puts the
// RFC 3339 stamp after the prefix ("pod container 2023-02-20T02:47:31…
// -03:00 W0220 …", real-logs/060): the stamp is the line's wrapper time.

var podPrefixWrapper = wrapper{
	name:   "pod-prefix",
	firsts: "[abcdefghijklmnopqrstuvwxyz0123456789",
	claims: func(line []byte) bool { return podPrefixEnd(line) > 0 },
	decode: unwrapPodPrefix,
	time:   stampTime, // the --timestamps stamp after the prefix, when there is one
}

// dnsName returns the length of the lowercase RFC 1123 name at p's start.
func dnsName(p []byte) int {
	i := 0
	for i < len(p) && i < 254 && (p[i] >= 'a' && p[i] <= 'z' || isDigit(p[i]) || p[i] == '-' || p[i] == '.') {
		i++
	}
	return i
}

// podPrefixEnd returns the length of a "[name] " or "pod container "
// prefix at line's start (blank included), or 0.
func podPrefixEnd(line []byte) int {
	if len(line) == 0 {
		return 0
	}
	if line[0] == '[' {
		e := bytes.IndexByte(line[:min(len(line), 512)], ']')
		if e < 2 || e+1 >= len(line) || line[e+1] != ' ' {
			return 0
		}
		in := line[1:e]
		if sp := bytes.IndexByte(in, ' '); sp > 0 {
			// stern's "[pod container] "
			if a := dnsName(in); a != sp || dnsName(in[sp+1:]) != len(in)-sp-1 || sp+1 == len(in) {
				return 0
			}
			return e + 2
		}
		for _, part := range bytes.Split(in, []byte("/")) {
			if len(part) == 0 || dnsName(part) != len(part) {
				return 0
			}
		}
		return e + 2
	}
	a := dnsName(line)
	if a == 0 || a >= len(line) || line[a] != ' ' {
		return 0
	}
	b := dnsName(line[a+1:])
	if b == 0 || a+1+b >= len(line) || line[a+1+b] != ' ' {
		return 0
	}
	return a + b + 2
}

// unwrapPodPrefix removes the prefix when a log line follows it (a klog
// header or a JSON log line), or when it repeats the previous line's
// prefix (a continuation line of the same pod).
func unwrapPodPrefix(u *unwrapper, line []byte, out *unwrapped) bool {
	n := podPrefixEnd(line)
	if n == 0 {
		return false
	}
	rest := line[n:]
	prefix := line[:n]
	same := len(u.podPrefix) > 0 && bytes.Equal(prefix, u.podPrefix)
	var ts []byte
	if k := rfc3339End(rest); k > 0 && k+1 < len(rest) && rest[k] == ' ' && rest[10] == 'T' && (same || podLogLine(rest[k+1:])) {
		ts, rest = rest[:k], rest[k+1:]
	}
	if !same && !podLogLine(rest) {
		return false
	}
	u.podPrefix = append(u.podPrefix[:0], prefix...)
	name := bytes.TrimSuffix(prefix, []byte(" "))
	if name[0] == '[' {
		name = name[1 : len(name)-1]
		if s := bytes.LastIndexAny(name, "/ "); s >= 0 {
			name = name[s+1:]
		}
	} else {
		name = name[bytes.IndexByte(name, ' ')+1:]
	}
	out.kind = wrapPodPrefix
	out.proc = name
	out.payload = rest
	out.ts = ts
	return true
}

// podLogLine reports whether p, after a pod prefix, starts a log line: a
// klog header, a JSON log line or a logrus "time=" line.
func podLogLine(p []byte) bool {
	return looksKlog(p) || looksJSONLog(p) || bytes.HasPrefix(p, []byte(`time="`))
}
