// Package textdist measures how far apart two names are, for "did you mean"
// suggestions on rule names, volume names, nodes and pods. It owns nothing
// else.
package textdist

import "slices"

// Levenshtein is the edit distance between a and b, counted in runes.
func Levenshtein(a, b string) int {
	row := lastRow([]rune(a), []rune(b), false)
	return row[len(row)-1]
}

// Substring is the smallest edit distance between a and any substring of b
// (an approximate substring match: a typo inside part of a long name).
func Substring(a, b string) int {
	return slices.Min(lastRow([]rune(a), []rune(b), true))
}

// lastRow runs the Wagner–Fischer table for a against b and returns its last
// row. With anywhere set, row 0 costs nothing, so a match of a may start at
// any position of b.
func lastRow(a, b []rune, anywhere bool) []int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	if !anywhere {
		for j := range prev {
			prev[j] = j
		}
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev
}
