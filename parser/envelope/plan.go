package envelope

// This file caches, for the raw-bytes reading of record objects, where a
// fieldMap's paths are in records whose members are laid out alike. An
// export writes every record with the same members in the same order
// (a VictoriaLogs line, a logcli jsonl line, an Elasticsearch _source),
// while a fieldMap tries dozens of alias paths per record, most of them
// absent: span answers each with a scan of the members (and a skim of
// every nested object on the way). A fieldPlan does that once per layout:
// it keeps the fieldMap's lists cut to the paths present in the layout
// (in their order, so "the first present, non-empty value" picks the
// same one) and the member each of them is; a record is checked against
// the layout (its keys, and for the members a path goes into, whether
// they are objects and their own keys) before the plan is used, and any
// other record takes span as before.

// fieldPlan is the resolution of a fieldMap's paths for one layout.
type fieldPlan struct {
	fm    *fieldMap // the fieldMap planned
	lists *fieldMap // fm with its lists cut to the paths present
	root  *layoutNode
	// entries are the present paths in the order record asks for them,
	// at their indexes, then the members without dots asked for besides
	// (present or not: add).
	entries []planEntry
	at      map[string]int32
	labels  [numLabels][]int32 // lists.label as entry indexes
	nodes   int                // layout nodes (root included)
	// slow: a path goes into an object whose keys do not compare as
	// bytes (span would decode the record whole); records of this layout
	// are read without the plan.
	slow bool
}

// planSpan is a member of a layout node: the node's id and the member's
// index among its fields.
type planSpan struct{ node, idx int32 }

// planEntry is a path: where it is (node -1: absent), and the last string without
// escapes read there (a label repeats from record to record, and is then
// not allocated again).
type planEntry struct {
	path string
	at   planSpan
	last string
}

// layoutNode is the layout of one object: its member keys, and for the
// members a path is split at (prefix), whether each is an object and, if
// so, its layout (sub).
type layoutNode struct {
	id     int32
	keys   []string
	prefix []bool
	obj    []bool
	sub    []*layoutNode
}

// planScratch holds, during one record, each layout node's fields; slot 0
// is the record's own.
type planScratch struct {
	fields [][]rawField
	bufs   [][]rawField // owned buffers of the nested objects' fields
}

func (sc *planScratch) grow(n int) {
	for len(sc.fields) < n {
		sc.fields = append(sc.fields, nil)
		sc.bufs = append(sc.bufs, nil)
	}
}

// maxPlans is how many layouts a decoder keeps plans for (records of a
// few kinds may alternate).
const maxPlans = 4

// planCache is a decoder's plans and how well they serve.
type planCache struct {
	plans  [maxPlans]*fieldPlan
	next   int
	misses int
	seen   int
	off    bool // layouts change too often for plans to pay
	sc     planScratch
}

// lookup returns the plan of fm whose layout the record object b with
// members fields has, nil when there is none. Its keys are then simple
// (simpleKeys): they are those of the record the plan was made of.
func (c *planCache) lookup(fm *fieldMap, b []byte, fields []rawField) *fieldPlan {
	if c.off {
		return nil
	}
	c.seen++
	for _, p := range c.plans {
		if p != nil && p.fm == fm && p.match(b, fields, &c.sc) {
			return p
		}
	}
	return nil
}

// build makes the plan of fm for the record object b with members fields
// (simple keys) that lookup found none for; nil when records are read
// without plans.
func (c *planCache) build(fm *fieldMap, b []byte, fields []rawField) *fieldPlan {
	if c.off {
		return nil
	}
	c.misses++
	if c.misses > 64 && c.misses*4 > c.seen {
		c.off = true
		return nil
	}
	p := newPlan(fm, b, fields)
	c.plans[c.next] = p
	c.next = (c.next + 1) % maxPlans
	if !p.match(b, fields, &c.sc) { // fills the scratch
		panic("envelope: a record does not match the plan made of it")
	}
	return p
}

// match reports whether the record object b with members fields has the
// plan's layout, keeping its nodes' fields in sc.
func (p *fieldPlan) match(b []byte, fields []rawField, sc *planScratch) bool {
	sc.grow(p.nodes)
	return p.root.match(b, fields, sc)
}

func (n *layoutNode) match(b []byte, fields []rawField, sc *planScratch) bool {
	if len(fields) != len(n.keys) {
		return false
	}
	for i := range fields {
		if string(fields[i].key) != n.keys[i] {
			return false
		}
	}
	sc.fields[n.id] = fields
	for i, f := range fields {
		if !n.prefix[i] {
			continue
		}
		if (b[f.from] == '{') != n.obj[i] {
			return false
		}
		s := n.sub[i]
		if s == nil {
			continue
		}
		buf := sc.bufs[s.id][:0]
		skimObject(b, f.from, 0, &buf)
		sc.bufs[s.id] = buf
		if !s.match(b, buf, sc) {
			return false
		}
	}
	return true
}

// newPlan resolves every path of fm in the record object b with members
// fields.
func newPlan(fm *fieldMap, b []byte, fields []rawField) *fieldPlan {
	p := &fieldPlan{fm: fm, at: map[string]int32{}}
	p.root = p.node(fields)
	subs := map[*layoutNode][]rawField{p.root: fields}
	present := func(path string) bool {
		if p.slow {
			return false
		}
		if _, ok := p.at[path]; ok {
			return true
		}
		s, ok, bad := p.resolve(p.root, b, subs, path)
		if bad {
			p.slow = true
		}
		if ok {
			p.at[path] = int32(len(p.entries))
			p.entries = append(p.entries, planEntry{path: path, at: s})
		}
		return ok
	}
	cut := func(paths []string) []string {
		var out []string
		for _, path := range paths {
			if present(path) {
				out = append(out, path)
			}
		}
		return out
	}
	// in record's order, so that entries are
	l := &fieldMap{msg: cut(fm.msg), fix: fm.fix, full: fm}
	for _, tf := range fm.time {
		if present(tf.path) {
			l.time = append(l.time, tf)
		}
	}
	l.level, l.file, l.line, l.id = cut(fm.level), cut(fm.file), cut(fm.line), cut(fm.id)
	for i, paths := range fm.label {
		l.label[i] = cut(paths)
		for _, path := range l.label[i] {
			p.labels[i] = append(p.labels[i], p.at[path])
		}
	}
	p.lists = l
	return p
}

// add resolves a path without dots that the plan does not hold (a fix's
// member) in the layout, present or absent, and returns its entry.
func (p *fieldPlan) add(path string) *planEntry {
	at := planSpan{node: -1}
	if i := p.root.last(path); i >= 0 {
		at = planSpan{p.root.id, int32(i)}
	}
	p.at[path] = int32(len(p.entries))
	p.entries = append(p.entries, planEntry{path: path, at: at})
	return &p.entries[len(p.entries)-1]
}

// node makes the layout node of an object with members fields.
func (p *fieldPlan) node(fields []rawField) *layoutNode {
	n := &layoutNode{id: int32(p.nodes), keys: make([]string, len(fields)),
		prefix: make([]bool, len(fields)), obj: make([]bool, len(fields)), sub: make([]*layoutNode, len(fields))}
	p.nodes++
	for i, f := range fields {
		n.keys[i] = string(f.key)
	}
	return n
}

// resolve finds path in node n (whose fields are subs[n]) with span's
// rules, growing the layout by what it looks at; bad as span's.
func (p *fieldPlan) resolve(n *layoutNode, b []byte, subs map[*layoutNode][]rawField, path string) (s planSpan, ok, bad bool) {
	if i := n.last(path); i >= 0 {
		return planSpan{n.id, int32(i)}, true, false
	}
	fields := subs[n]
	for i := 0; i < len(path); i++ {
		if path[i] != '.' {
			continue
		}
		j := n.last(path[:i])
		if j < 0 {
			continue
		}
		f := fields[j]
		n.prefix[j], n.obj[j] = true, b[f.from] == '{'
		if !n.obj[j] {
			continue
		}
		if n.sub[j] == nil {
			var sub []rawField
			skimObject(b, f.from, 0, &sub)
			n.sub[j] = p.node(sub)
			subs[n.sub[j]] = sub
			if !simpleKeys(sub) {
				return planSpan{}, false, true
			}
		}
		if s, ok, bad := p.resolve(n.sub[j], b, subs, path[i+1:]); ok || bad {
			return s, ok, bad
		}
	}
	return planSpan{}, false, false
}

// last is the index of the last member called key, or -1.
func (n *layoutNode) last(key string) int {
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			return i
		}
	}
	return -1
}
