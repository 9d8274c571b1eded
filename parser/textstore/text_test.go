package textstore

import (
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// realLines are a few entries as the parser keeps them.
var realLines = []string{
	`I0812 03:14:15.619804       1 reconciler.go:360] "attacherDetacher.AttachVolume started" volume={"name":"kubernetes.io/csi/ebs.csi.aws.com^vol-0a1b2c3d4e5f60718"} nodeName="ip-10-0-1-23.ec2.internal"`,
	`E0812 03:12:08.905133       1 nestedpendingoperations.go:348] Operation for "{volumeName:kubernetes.io/csi/ebs.csi.aws.com^vol-0a podName: nodeName:}" failed. No retries permitted until 2024-08-12 03:14:10.905101877 +0000 UTC m=+1.9 (durationBeforeRetry 2m2s). Error: AttachVolume.Attach failed for volume "pvc-1" (UniqueName: "v") from node "n" : rpc error: code = Internal`,
	`{"ts":1723432200614.5,"caller":"reconciler/reconciler.go:300","msg":"AttachVolume.Attach succeeded for volume \"pvc-9\"","v":0}`,
	"W0812 03:14:16.000000    2210 mount_linux.go:219] Mount failed: exit status 32\nOutput: mount: wrong fs type, bad option, bad superblock on /dev/nvme1n1\n\tdetails",
	"Warning  FailedAttachVolume  3m (x35 over 77m)  attachdetach-controller  Multi-Attach error for volume \"pvc-é\"",
}

// decodes is the number of blocks the cache has decoded so far.
func decodes() int {
	decodedCache.mu.Lock()
	defer decodedCache.mu.Unlock()
	return decodedCache.decodes
}

// flushCache empties the cache (a test's reads then decode); the
// buffers stay for reuse.
func flushCache() {
	decodedCache.mu.Lock()
	defer decodedCache.mu.Unlock()
	for i := range decodedCache.ents {
		decodedCache.ents[i].b, decodedCache.ents[i].used = nil, 0
	}
}

func blockOf(t Text) *block {
	if t.off == plainOff || t.n == 0 {
		return nil
	}
	return (*block)(t.p)
}

func TestTextSize(t *testing.T) {
	if s := unsafe.Sizeof(Text{}); s > 16 {
		t.Errorf("Text is %d bytes, want at most 16 (a string header)", s)
	}
}

func TestBuilder(t *testing.T) {
	big := strings.Repeat("x", BlockSize-10)
	for _, tc := range []struct {
		name   string
		texts  []string
		blocks int // distinct blocks the texts are in
	}{
		{name: "empty", texts: []string{"", "a", ""}, blocks: 1},
		{name: "one", texts: []string{realLines[0]}, blocks: 1},
		{name: "exactly at the boundary", texts: []string{big, "0123456789", "next"}, blocks: 2},
		{name: "one short of the boundary", texts: []string{big, "012345678", "same"}, blocks: 1},
		{name: "longer than a block", texts: []string{"a", strings.Repeat("y", 3*BlockSize), "b"}, blocks: 2},
		{name: "many blocks", texts: manyTexts(20000), blocks: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b Builder
			texts := make([]Text, len(tc.texts))
			for i, s := range tc.texts {
				if i%2 == 0 {
					texts[i] = b.AddString(s)
				} else {
					texts[i] = b.Add([]byte(s))
				}
				if texts[i].Len() != len(s) || texts[i].IsZero() != (s == "") {
					t.Fatalf("text %d: Len %d IsZero %v for %d bytes", i, texts[i].Len(), texts[i].IsZero(), len(s))
				}
			}
			// before the seal, on the builder's goroutine
			for i, s := range tc.texts {
				if got := texts[i].String(); got != s {
					t.Fatalf("text %d before Seal: %q, want %q", i, clip(got), clip(s))
				}
			}
			b.Seal()
			b.Seal() // a second Seal is nothing
			blocks := map[*block]bool{}
			for i, s := range tc.texts {
				if got := texts[i].String(); got != s {
					t.Fatalf("text %d after Seal: %q, want %q", i, clip(got), clip(s))
				}
				if k := blockOf(texts[i]); k != nil {
					blocks[k] = true
					if k.raw != nil || k.comp == nil {
						t.Fatalf("text %d: block not sealed (raw %d bytes, compressed %d)", i, len(k.raw), len(k.comp))
					}
				}
			}
			if tc.blocks >= 0 && len(blocks) != tc.blocks {
				t.Errorf("%d blocks, want %d", len(blocks), tc.blocks)
			}
			if tc.blocks < 0 && len(blocks) < 10 {
				t.Errorf("%d blocks, want many", len(blocks))
			}
		})
	}
}

// TestBlockSmallerThanTexts: a block keeps its texts compressed, far
// smaller than they are (log lines repeat).
func TestBlockSmallerThanTexts(t *testing.T) {
	var b Builder
	texts := manyTexts(5000)
	raw := 0
	var ts []Text
	for _, s := range texts {
		ts = append(ts, b.AddString(s))
		raw += len(s)
	}
	b.Seal()
	comp := 0
	seen := map[*block]bool{}
	for _, t := range ts {
		if k := blockOf(t); !seen[k] {
			seen[k] = true
			comp += len(k.comp)
		}
	}
	if comp*3 > raw {
		t.Errorf("%d bytes of texts kept in %d compressed, want at least 3× smaller", raw, comp)
	}
}

func TestConcurrentBuilders(t *testing.T) {
	const workers, n = 4, 3000
	out := make([][]Text, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var b Builder
			for i := range n {
				out[w] = append(out[w], b.AddString(lineFor(w, i)))
			}
			b.Seal()
		})
	}
	wg.Wait()
	// read concurrently too, through the one cache
	for w := range workers {
		wg.Go(func() {
			for i, tx := range out[w] {
				if got, want := tx.String(), lineFor(w, i); got != want {
					t.Errorf("worker %d text %d: %q, want %q", w, i, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestSequentialReadDecodesEachBlockOnce: a reader in order decodes each
// block once, even reading two builders' texts side by side.
func TestSequentialReadDecodesEachBlockOnce(t *testing.T) {
	var a, b Builder
	var ta, tb []Text
	for i := range 4000 {
		ta = append(ta, a.AddString(lineFor(0, i)))
		tb = append(tb, b.AddString(lineFor(1, i)))
	}
	a.Seal()
	b.Seal()
	blocks := map[*block]bool{}
	for i := range ta {
		blocks[blockOf(ta[i])], blocks[blockOf(tb[i])] = true, true
	}
	flushCache()
	before := decodes()
	for i := range ta {
		if ta[i].String() != lineFor(0, i) || tb[i].String() != lineFor(1, i) {
			t.Fatalf("text %d differs", i)
		}
	}
	if got := decodes() - before; got != len(blocks) {
		t.Errorf("%d decodes for %d blocks read in order", got, len(blocks))
	}
}

// TestCacheEviction: more blocks than the cache holds, read round robin,
// are evicted and decoded again, and read right.
func TestCacheEviction(t *testing.T) {
	bs := make([]Builder, cacheEntries+3)
	ts := make([]Text, len(bs))
	for i := range bs {
		ts[i] = bs[i].AddString(lineFor(i, 0))
		bs[i].Seal()
	}
	flushCache()
	before := decodes()
	for round := range 3 {
		for i := range ts {
			if got := ts[i].String(); got != lineFor(i, 0) {
				t.Fatalf("round %d text %d: %q", round, i, got)
			}
		}
	}
	if got := decodes() - before; got != 3*len(ts) {
		t.Errorf("%d decodes, want %d (LRU over %d blocks, %d entries)", got, 3*len(ts), len(ts), cacheEntries)
	}
	// the most recent ones stay
	before = decodes()
	for i := len(ts) - cacheEntries; i < len(ts); i++ {
		_ = ts[i].String()
	}
	if got := decodes() - before; got != 0 {
		t.Errorf("%d decodes re-reading the %d most recent blocks", got, cacheEntries)
	}
}

func TestTextOf(t *testing.T) {
	for _, s := range append([]string{"", "a"}, realLines...) {
		tx := TextOf(s)
		if tx.String() != s || tx.Len() != len(s) || tx.IsZero() != (s == "") {
			t.Errorf("TextOf(%q): %q len %d zero %v", s, tx.String(), tx.Len(), tx.IsZero())
		}
		if s != "" && unsafe.StringData(tx.String()) != unsafe.StringData(s) {
			t.Errorf("TextOf(%q) copied its string", s)
		}
	}
	if TextOf("") != (Text{}) {
		t.Error("TextOf(\"\") is not the zero Text")
	}
}

func TestEqual(t *testing.T) {
	var a, b Builder
	x, y := a.AddString(realLines[0]), b.AddString(realLines[0])
	z := a.AddString(realLines[1])
	a.Seal()
	b.Seal()
	for _, tc := range []struct {
		a, b Text
		want bool
	}{
		{x, x, true}, {x, y, true}, {x, TextOf(realLines[0]), true}, {x, z, false},
		{Text{}, TextOf(""), true}, {x, Text{}, false},
		{TextOf("ab"), TextOf("ac"), false},
	} {
		if got := Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("Equal(%q, %q) = %v", clip(tc.a.String()), clip(tc.b.String()), got)
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	for _, l := range realLines {
		f.Add(l, 3)
	}
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, s string, reps int) {
		reps = reps%50 + 1
		if reps < 1 {
			reps = 1
		}
		var b Builder
		var ts []Text
		for i := range reps {
			ts = append(ts, b.AddString(s[:len(s)*i/reps]), b.AddString(s))
		}
		b.Seal()
		for i := range reps {
			if got := ts[2*i].String(); got != s[:len(s)*i/reps] {
				t.Fatalf("prefix %d: %q", i, got)
			}
			if got := ts[2*i+1].String(); got != s {
				t.Fatalf("text %d: %q, want %q", i, got, s)
			}
		}
	})
}

func TestNames(t *testing.T) {
	var n Names
	buf := []byte("kubernetes.io/csi/ebs.csi.aws.com^vol-1 node-1")
	view := unsafe.String(unsafe.SliceData(buf), len(buf))
	v1, n1 := n.Intern(view[:39]), n.Intern(view[40:])
	for i := range buf {
		buf[i] = 'X' // the names own their memory
	}
	if v1 != "kubernetes.io/csi/ebs.csi.aws.com^vol-1" || n1 != "node-1" {
		t.Fatalf("interned %q %q", v1, n1)
	}
	v2 := n.Intern(strings.Clone("kubernetes.io/csi/ebs.csi.aws.com^vol-1"))
	if unsafe.StringData(v1) != unsafe.StringData(v2) {
		t.Error("an equal name is not the same string")
	}
	if n.Intern("") != "" || n.Len() != 2 {
		t.Errorf("%d names", n.Len())
	}
	long := strings.Repeat("e", arenaChunk)
	if got := n.Intern(long); got != long {
		t.Error("a long name changed")
	}
	// many names over several arena chunks
	for i := range 5000 {
		s := fmt.Sprintf("pvc-%08d", i)
		if got := n.Intern(s); got != s {
			t.Fatalf("%q interned as %q", s, got)
		}
	}
	for i := range 5000 {
		if got := n.Intern(fmt.Sprintf("pvc-%08d", i)); got != fmt.Sprintf("pvc-%08d", i) {
			t.Fatalf("%d: %q", i, got)
		}
	}
}

// TestNamesBounded: a name named again after each new one stays one
// string however many others come (each new name can push it out of the
// front of its set only), the table holds at most maxNameSets sets, and
// every name comes back equal.
func TestNamesBounded(t *testing.T) {
	var n Names
	node := n.Intern(strings.Clone("node-1"))
	for i := range 4 * maxNameSets {
		s := fmt.Sprintf("pvc-%08d", i)
		if got := n.Intern(s); got != s {
			t.Fatalf("%q interned as %q", s, got)
		}
		if got := n.Intern(strings.Clone("node-1")); unsafe.StringData(got) != unsafe.StringData(node) {
			t.Fatalf("after %d names, the node is a new string", i+1)
		}
	}
	if len(n.sets) != maxNameSets || n.Len() > 2*maxNameSets {
		t.Errorf("%d sets holding %d names, want %d sets", len(n.sets), n.Len(), maxNameSets)
	}
	for i := range 4 * maxNameSets {
		if s := fmt.Sprintf("pvc-%08d", i); n.Intern(s) != s {
			t.Fatalf("%q changed", s)
		}
	}
}

// TestNamesGrowKeepsNames: the names of a table that grows stay shared,
// whatever set the hash seed puts them in. (vol-a is interned last, so
// that it is the most recent of its set from the start: interned first,
// vol-b could share its set and the next name push it out, which one seed
// in about 150 did.)
func TestNamesGrowKeepsNames(t *testing.T) {
	defer func(s maphash.Seed) { nameSeed = s }(nameSeed)
	for seed := range 300 {
		nameSeed = maphash.MakeSeed()
		var n Names
		n.Intern(strings.Clone("vol-b"))
		first := n.Intern(strings.Clone("vol-a"))
		before := len(n.sets)
		for i := 0; len(n.sets) == before; i++ {
			n.Intern(fmt.Sprintf("x-%d", i))
			n.Intern(strings.Clone("vol-a")) // keep it the most recent of its set
		}
		if got := n.Intern(strings.Clone("vol-a")); unsafe.StringData(got) != unsafe.StringData(first) {
			t.Fatalf("seed %d: a name is a new string after the table grew", seed)
		}
	}
}

func lineFor(w, i int) string {
	return fmt.Sprintf("I0812 03:%02d:%02d.%06d       1 reconciler.go:360] \"attacherDetacher.AttachVolume started\" volume={\"name\":\"kubernetes.io/csi/ebs.csi.aws.com^vol-%05d\"} nodeName=\"ip-10-0-%d-23.ec2.internal\"", i/60%60, i%60, i, i, w)
}

func manyTexts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = lineFor(i%7, i)
	}
	return out
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

func BenchmarkAddSeal(b *testing.B) {
	texts := manyTexts(10000)
	n := 0
	for _, s := range texts {
		n += len(s)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		var bl Builder
		for _, s := range texts {
			bl.AddString(s)
		}
		bl.Seal()
	}
}

func BenchmarkStringSequential(b *testing.B) {
	texts := manyTexts(10000)
	var bl Builder
	ts := make([]Text, len(texts))
	n := 0
	for i, s := range texts {
		ts[i] = bl.AddString(s)
		n += len(s)
	}
	bl.Seal()
	b.SetBytes(int64(n))
	for b.Loop() {
		flushCache()
		for _, t := range ts {
			_ = t.String()
		}
	}
}
