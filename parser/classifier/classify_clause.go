package classifier

import "strings"

// clause is the decoded form of the operation executor's volume sentences
// (catalog §2):
//
//	<op> for volume "<name>" (UniqueName: "<unique>") from|on node "<node>" <suffix>
//	<op> for volume "<name>" (UniqueName: "<unique>") pod "<pod>" (UID: "<uid>") <suffix>
//	<op> for volume "<name>" : <err>                       (event, simple form)
//	<op> for volume "<unique>" (spec.Name: "<spec>") from node "<node>" with: <err>   (≤1.6)
//	Started AttachVolume for volume "<unique>" to node "<node>"                         (≤1.6)
//	UnmountVolume.TearDown succeeded for volume "<unique>" (OuterVolumeSpecName: "<o>") pod "<uid>" (UID: "<uid>"). InnerVolumeSpecName "<pv>". …
//	Volume "<unique>" (spec.Name: "<s>") pod "<uid>" (UID: "<uid>") has not yet been added … (1.3)
type clause struct {
	op      string // text before `for volume "` (or before `Volume "`), trimmed
	name    string // first quoted name after "volume"
	unique  string // (UniqueName: …)
	spec    string // (spec.Name: …)
	outer   string // (OuterVolumeSpecName: …)
	node    string
	pod     string
	uid     string
	rest    string // text after the recognised parts, leading blank trimmed
	err     string // error text when rest is ": <err>" or "with: <err>"
	hasErr  bool
	dirNode string // "from", "on" or "to"
}

// parseClause finds the volume sentence in s. ok is false when s has no
// `volume "<name>"` part.
func parseClause(s string) (c clause, ok bool) {
	i := findVolumeWord(s)
	if i < 0 {
		return c, false
	}
	c.op = strings.TrimSpace(s[:i])
	c.op = strings.TrimSpace(strings.TrimSuffix(c.op, " for"))
	if c.op == "for" {
		c.op = ""
	}
	p := i + len(`volume `)
	name, n, qok := readQuoted(s[p:])
	if !qok {
		return c, false
	}
	c.name = name
	p += n
	// Parenthesised names.
	for {
		r := s[p:]
		var dst *string
		var pre string
		switch {
		case strings.HasPrefix(r, ` (UniqueName: "`):
			dst, pre = &c.unique, ` (UniqueName: `
		case strings.HasPrefix(r, ` (spec.Name: "`):
			dst, pre = &c.spec, ` (spec.Name: `
		case strings.HasPrefix(r, ` (OuterVolumeSpecName: "`):
			dst, pre = &c.outer, ` (OuterVolumeSpecName: `
		}
		if dst == nil {
			break
		}
		v, m, qok := readQuoted(r[len(pre):])
		if !qok {
			break
		}
		*dst = v
		p += len(pre) + m
		if strings.HasPrefix(s[p:], ")") {
			p++
		}
	}
	// Node or pod.
	r := s[p:]
	for _, d := range nodeDirs {
		if strings.HasPrefix(r, d.pre) {
			v, m, qok := readQuoted(r[len(d.pre)-1:])
			if qok {
				c.node, c.dirNode = v, d.dir
				p += len(d.pre) - 1 + m
			}
			break
		}
	}
	r = s[p:]
	if c.node == "" {
		pre := ""
		switch {
		case strings.HasPrefix(r, ` pod "`):
			pre = ` pod `
		case strings.HasPrefix(r, ` to pod "`):
			pre = ` to pod `
		}
		if pre != "" {
			v, m, qok := readQuoted(r[len(pre):])
			if qok {
				c.pod = v
				p += len(pre) + m
				r = s[p:]
				if strings.HasPrefix(r, ` (UID: "`) {
					u, m2, qok := readQuoted(r[len(` (UID: `):])
					if qok {
						c.uid = u
						p += len(` (UID: `) + m2
						if strings.HasPrefix(s[p:], ")") {
							p++
						}
					}
				}
			}
		}
	}
	c.rest = strings.TrimLeft(s[p:], " ")
	switch {
	case strings.HasPrefix(c.rest, ": "):
		c.err, c.hasErr = c.rest[2:], true
	case strings.HasPrefix(c.rest, "with: "):
		c.err, c.hasErr = c.rest[len("with: "):], true
	case strings.HasPrefix(c.rest, "with err: "):
		c.err, c.hasErr = c.rest[len("with err: "):], true
	case c.rest == ":":
		c.hasErr = true
	}
	return c, true
}

// nodeDirs are the ways a clause names its node: the direction word and the
// text that introduces the quoted node name.
var nodeDirs = [...]struct{ dir, pre string }{
	{"from", ` from node "`}, {"on", ` on node "`}, {"to", ` to node "`},
}

// findVolumeWord returns the index of the first `volume "` (or `Volume "`)
// that starts a word, or -1.
//
// It looks at the quotes of s in turn, for the one that ends such a word:
// quotes are rarer than the 'o' a search for `olume "` would stop at.
func findVolumeWord(s string) int {
	k := 0
	for {
		q := strings.IndexByte(s[k:], '"')
		if q < 0 {
			return -1
		}
		q += k
		// the word would start at m
		if m := q - len(`volume `); m >= 0 && (s[m] == 'v' || s[m] == 'V') && s[m+1:q] == `olume ` &&
			(m == 0 || s[m-1] == ' ' || s[m-1] == '\n') {
			return m
		}
		k = q + 1
	}
}

// apply copies the clause's names into ev following catalog §2: UniqueName
// keys the volume, the display name is the PV unless it is "nil"; in ≤1.6
// sentences the first name is the unique name and spec.Name the PV.
func (c *clause) apply(ev *Draft) {
	switch {
	case c.unique != "":
		ev.Volume = c.unique
		if c.name != "nil" && c.name != c.unique {
			ev.PV = c.name
		}
	case c.spec != "":
		ev.Volume = c.name
		if c.spec != "nil" {
			ev.PV = c.spec
		}
	case c.outer != "":
		ev.Volume = c.name
		if v := quotedAfter(c.rest, `InnerVolumeSpecName `); v != "" {
			ev.PV = v
		}
	case looksUnique(c.name):
		ev.Volume = c.name
	case c.name != "nil":
		ev.PV = c.name
	}
	if c.node != "" {
		ev.Node = c.node
	}
	if c.pod != "" {
		if c.uid != "" && c.pod == c.uid {
			// MountedVolume sentences name the pod by its UID.
			ev.PodUID = c.uid
		} else if ev.Pod == "" || !strings.Contains(ev.Pod, "/") {
			// A structured pod="ns/name" is more precise than the sentence's name.
			ev.Pod = c.pod
		}
	}
	if c.uid != "" {
		ev.PodUID = c.uid
	}
	if c.hasErr {
		ev.Error = strings.TrimSpace(c.err)
	}
}

// looksUnique reports whether a volume name is a plugin unique name.
func looksUnique(name string) bool {
	return strings.HasPrefix(name, "kubernetes.io/") || strings.Contains(name, "^")
}

// quotedAfter returns the Go-quoted string following marker in s, or "".
func quotedAfter(s, marker string) string {
	i := strings.Index(s, marker)
	if i < 0 {
		return ""
	}
	v, _, ok := readQuoted(s[i+len(marker):])
	if !ok {
		return ""
	}
	return v
}

// handleOf derives the backend id from a unique volume name: the CSI handle
// after '^', or the last part of an in-tree name (aws vol-…, cinder id,
// qcloud-cbs disk-…, gce pd, vSphere path). Non-attachable plugins
// (secret, configmap, projected, empty-dir, …) have none.
func handleOf(unique string) string {
	if i := strings.IndexByte(unique, '^'); i >= 0 {
		return unique[i+1:]
	}
	rest, ok := strings.CutPrefix(unique, "kubernetes.io/")
	if !ok {
		return ""
	}
	plugin, id, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	switch plugin {
	case "secret", "configmap", "projected", "empty-dir", "downward-api", "host-path",
		"git-repo", "local-volume", "nfs", "csi":
		return ""
	case "aws-ebs":
		// aws://zone/vol-… or vol-…
		if j := strings.LastIndexByte(id, '/'); j >= 0 {
			return id[j+1:]
		}
	case "azure-disk":
		if j := strings.LastIndexByte(id, '/'); j >= 0 && j+1 < len(id) {
			return id[j+1:]
		}
	}
	return id
}

// backendID finds a cloud disk id (CBS disk-…, AWS vol-…) in free text, for
// driver lines that name no unique volume.
func backendID(s string) string {
	for _, pre := range [...]string{"disk-", "vol-"} {
		k := 0
		for {
			i := strings.Index(s[k:], pre)
			if i < 0 {
				break
			}
			i += k
			j := i + len(pre)
			for j < len(s) && isAlnum(s[j]) {
				j++
			}
			// A word start (or "virtio-disk-…") and a plausible id length.
			if j-i-len(pre) >= 6 && (i == 0 || !isAlnum(s[i-1]) || strings.HasSuffix(s[:i], "virtio-")) {
				return s[i:j]
			}
			k = i + len(pre)
		}
	}
	return ""
}

func isAlnum(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}
