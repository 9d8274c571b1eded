package parser

import (
	"fmt"
	"testing"
)

// TestFlattenAllKeepsOrder: flattenAll lays out every input's events (those
// already flat, then its pages) in input order in one array, with metas
// alongside, and each input's
// window reaches to the array's end.
func TestFlattenAllKeepsOrder(t *testing.T) {
	flattenAll(nil) // no input could be read
	for _, sizes := range [][]int{
		{0}, {1}, {3, 0, 5},
		{eventPage*3 + 7, 11, 0, eventPage + 1},
		{eventPage*20 + 5, eventPage*2 + 3, 17},
	} {
		t.Run(fmt.Sprint(sizes), func(t *testing.T) {
			states := make([]*inputState, len(sizes))
			for i, n := range sizes {
				st := &inputState{}
				for k := range n {
					ev := Draft{Node: fmt.Sprintf("n%d-%d", i, k), Source: Source{Line: Int32(k)}}
					m := evMeta{yoff: int32(i*1000000 + k)}
					if k < 2 { // some already flat
						st.events, st.metas = append(st.events, ev.Event()), append(st.metas, m)
						continue
					}
					st.addEvent(&ev, m, "")
				}
				states[i] = st
			}
			flattenAll(states)
			total := 0
			for _, n := range sizes {
				total += n
			}
			for i, st := range states {
				if len(st.events) != sizes[i] || len(st.metas) != sizes[i] || st.pages != nil || st.mpages != nil {
					t.Fatalf("input %d: %d events, %d metas, pages %v; want %d", i, len(st.events), len(st.metas), st.pages != nil, sizes[i])
				}
				for k := range st.events {
					if want := fmt.Sprintf("n%d-%d", i, k); st.events[k].Node != want || int(st.events[k].Source.Line) != k || int(st.metas[k].yoff) != i*1000000+k {
						t.Fatalf("input %d event %d: %s line %d meta %d", i, k, st.events[k].Node, st.events[k].Source.Line, st.metas[k].yoff)
					}
				}
				if n := cap(st.events); n > 0 && &st.events[:n][n-1] != &states[0].events[:total][total-1] {
					t.Fatalf("input %d: its window does not end with the shared array", i)
				}
			}
		})
	}
}
