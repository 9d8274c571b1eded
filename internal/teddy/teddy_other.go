//go:build !amd64

package teddy

// Available is false: there is no kernel for this architecture, and
// Set.Index scans byte by byte.
const Available = false

// use512 is false: there is no kernel.
var use512 = false

func scan(b []byte, m *nibbleMasks) (off int, mask uint64, width int) { return 0, 0, 32 }
