package classifier

import (
	"fmt"
	"sync"
	"testing"
)

// TestInternPath: a path gets one id, which gives the path back; the
// empty path and the zero Source have id 0 and path "", and an id no
// InternPath returned reads as "".
func TestInternPath(t *testing.T) {
	a, b := InternPath("test/a.log"), InternPath("test/b.log")
	if a == 0 || b == 0 || a == b {
		t.Fatalf("ids %d, %d: want two distinct non-zero ids", a, b)
	}
	buf := []byte("test/a.log")
	if again := InternPath(string(buf)); again != a {
		t.Errorf("the same path again: id %d, want %d", again, a)
	}
	buf[0] = 'X' // the table holds a copy
	if got := a.String(); got != "test/a.log" {
		t.Errorf("id %d is %q, want test/a.log", a, got)
	}
	if got := (Source{File: b, Line: 3}).Path(); got != "test/b.log" {
		t.Errorf("Source.Path() = %q, want test/b.log", got)
	}
	if id := InternPath(""); id != 0 {
		t.Errorf("the empty path: id %d, want 0", id)
	}
	if got := (Source{}).Path(); got != "" {
		t.Errorf("zero Source: path %q", got)
	}
	if got := PathID(1 << 31).String(); got != "" {
		t.Errorf("an id never returned: %q", got)
	}
}

// TestInternPathConcurrent: inputs read at once intern their paths at
// once; each path still gets one id and every id its path (run with -race
// for the table's reads against its appends).
func TestInternPathConcurrent(t *testing.T) {
	const workers, n = 8, 200
	ids := make([][]PathID, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				p := fmt.Sprintf("concurrent/%d.log", (i*7+w)%n)
				id := InternPath(p)
				if got := id.String(); got != p {
					t.Errorf("id %d is %q, want %q", id, got, p)
				}
				ids[w] = append(ids[w], id)
			}
		}()
	}
	wg.Wait()
	seen := map[PathID]string{}
	for w := range workers {
		for i, id := range ids[w] {
			p := fmt.Sprintf("concurrent/%d.log", (i*7+w)%n)
			if q, ok := seen[id]; ok && q != p {
				t.Errorf("id %d for %q and %q", id, q, p)
			}
			seen[id] = p
		}
	}
	if len(seen) != n {
		t.Errorf("%d ids for %d paths", len(seen), n)
	}
}
