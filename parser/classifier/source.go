package classifier

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Source is where a line came from.
type Source struct {
	File  PathID // the input's path (Path), interned once per input
	Line  int32  // 1-based line number of the entry's first line
	Input int32  // index of the input in command-line order; used for stable sorting
}

// Path is the input's path as given on the command line (or as found when
// walking a directory, or the name of a fetched stream); "" for the zero
// Source.
func (s Source) Path() string { return s.File.String() }

// PathID is an input's path as a Source holds it: its index in the
// process's table of paths (InternPath). Every event of an input has the
// same path, so that an event holds four bytes and no pointer for it. The
// zero PathID is the empty path. Two sources have the same path exactly
// when they have the same PathID.
type PathID uint32

// paths is the process's table of paths: append-only (a path, once
// interned, keeps its id for the life of the process), written under mu,
// read without a lock (String loads the list, whose first len entries
// never change).
var paths struct {
	mu   sync.Mutex
	ids  map[string]PathID
	list atomic.Pointer[[]string] // list[id] is the path of id; list[0] is ""
}

// InternPath returns the PathID of path, adding it to the table the first
// time it is seen (a copy, so that path may be a window of a buffer). Call
// it once per input, not per event: it takes a lock.
func InternPath(path string) PathID {
	if path == "" {
		return 0
	}
	paths.mu.Lock()
	defer paths.mu.Unlock()
	if id, ok := paths.ids[path]; ok {
		return id
	}
	list := []string{""}
	if l := paths.list.Load(); l != nil {
		list = *l
	}
	id := PathID(len(list))
	path = strings.Clone(path)
	// append writes past the end of the list readers hold, never into it
	list = append(list, path)
	paths.list.Store(&list)
	if paths.ids == nil {
		paths.ids = map[string]PathID{}
	}
	paths.ids[path] = id
	return id
}

// String is the path of id ("" for the zero PathID, or one InternPath
// did not return).
func (id PathID) String() string {
	if l := paths.list.Load(); l != nil && int(id) < len(*l) {
		return (*l)[id]
	}
	return ""
}
