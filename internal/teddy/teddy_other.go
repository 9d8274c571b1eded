//go:build !amd64

package teddy

// Available is false: there is no kernel for this architecture, and
// Set.Index scans byte by byte.
const Available = false

func scan(b []byte, m *nibbleMasks) (int, uint32) { return 0, 0 }
