package report

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kcmtrace/kcmtrace/internal/cpubudget"
)

// wrapByTruncate is wrap's long-word cut as it was: ansi.Truncate line by
// line, re-measuring the rest each time. The one-pass cut must agree.
func wrapByTruncate(word string, width int) []string {
	var out []string
	for ansi.StringWidth(word) > width {
		part := ansi.Truncate(word, width, "")
		out = append(out, part)
		word = word[len(part):]
	}
	return append(out, word)
}

// TestWrapLongWordsAsTruncate: the one-pass cut gives the lines repeated
// ansi.Truncate gives, wide and zero-width characters included.
func TestWrapLongWordsAsTruncate(t *testing.T) {
	for _, w := range []string{
		strings.Repeat("node-", 40),
		strings.Repeat("节点", 37) + "x",
		strings.Repeat("é", 50),                            // e + combining acute
		strings.Repeat("a\u0301\u0302", 33) + "🇩🇪🇫🇷" + "b", // stacked marks, flags
		strings.Repeat("ab👩‍👩‍👧x", 20),
		strings.Repeat("x", 99) + "\u200b\u200b" + "yz",
	} {
		for _, width := range []int{10, 11, 37, 80} {
			got := wrap(w, width)
			if want := wrapByTruncate(w, width); !slices.Equal(got, want) {
				t.Errorf("wrap(%q, %d):\n got %q\nwant %q", w, width, got, want)
			}
		}
	}
}

// TestWrapLongWordLinear: a 100 000-character node name is cut in one pass
// (cutCells: each byte read once) rather than by ansi.Truncate line after
// line, which re-reads the whole rest of the word for each line (0.9 s for
// this word at 80 cells; BenchmarkWrapLongWord shows the growth).
func TestWrapLongWordLinear(t *testing.T) {
	word := strings.Repeat("n", 100_000)
	parts, rest, w, ok := cutCells(word, 80)
	if !ok || len(parts) != 100_000/80-1 || rest != word[:80] || w != 80 {
		t.Fatalf("cutCells: ok %v, %d parts, rest %d bytes (%d cells)", ok, len(parts), len(rest), w)
	}
	lines := wrap("node "+word+" end", 80)
	if len(lines) != 100_000/80+2 || lines[0] != "node" || lines[1] != word[:80] || lines[len(lines)-1] != "end" {
		t.Fatalf("%d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	for _, bad := range []string{"a\x1b[31mb", "a\xffb"} {
		if _, _, _, ok := cutCells(strings.Repeat(bad, 20), 10); ok {
			t.Errorf("cutCells took %q, which ansi must measure", bad)
		}
	}
}

// TestWrapLongWordWithinBudget: wrapping a 300 000-character node name
// and a 100 000-character wide-character word at 80 cells stays within
// 500 ms of processor time (a few milliseconds when each byte is read once).
// Cutting line by line with ansi.Truncate, which re-reads the whole rest of
// the word for each line, is quadratic: many seconds for these words.
func TestWrapLongWordWithinBudget(t *testing.T) {
	ascii := strings.Repeat("n", 300_000)
	wide := strings.Repeat("节", 100_000)
	var a, w []string
	cpubudget.Within(t, 500*time.Millisecond, "wrap of a 300 k-character word", func() {
		a = wrap("node "+ascii+" end", 80)
		w = wrap(wide, 80)
	})
	if len(a) != 300_000/80+2 || a[1] != ascii[:80] || a[len(a)-1] != "end" {
		t.Fatalf("ASCII word: %d lines, last %q", len(a), a[len(a)-1])
	}
	if len(w) != 100_000/40 || w[0] != wide[:40*len("节")] {
		t.Fatalf("wide word: %d lines, first %q", len(w), w[0])
	}
}

// BenchmarkWrapLongWord wraps one word of 10 k, 30 k and 100 k characters.
func BenchmarkWrapLongWord(b *testing.B) {
	for _, n := range []int{10_000, 30_000, 100_000} {
		word := strings.Repeat("n", n)
		b.Run("chars="+itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				wrap(word, 80)
			}
		})
	}
}

// FuzzWrapOneLine holds wrap's shortcut for a line that fits to what
// wrapping it word by word gives.
func FuzzWrapOneLine(f *testing.F) {
	for _, s := range []string{"", "a b", " a", "a ", "a  b", "pvc-1 · 2 events · 3s", "attach-failed ×12 over 3m → node-2 …", "数据 库", "a\tb", "x\u00a0y", strings.Repeat("w ", 40)} {
		f.Add(s, 80)
	}
	f.Fuzz(func(t *testing.T, s string, width int) {
		if width > 1000 || width < -1000 {
			return
		}
		got, want := wrap(s, width), wrapWords(s, max(width, 10))
		if !slices.Equal(got, want) {
			t.Errorf("wrap(%q, %d) = %q, word by word %q", s, width, got, want)
		}
	})
}
