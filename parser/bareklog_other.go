//go:build !amd64

package parser

// useBareKernel is false: there is no kernel for this architecture.
const useBareKernel = false

// bareKlogKernel takes no line here (useBareKernel is false); see
// bareklog_amd64.go.
func bareKlogKernel(p *byte, n, s, hit, max int, ref8, ref2 uint64) (count, prev, last, end int) {
	return 0, -1, -1, s
}
