//go:build !amd64

package parser

// useTeddy is false: there is no kernel for this architecture, and
// teddySet.index scans byte by byte.
const useTeddy = false

func teddyScan(b []byte, m *teddyMasks) (int, uint32) { return 0, 0 }
