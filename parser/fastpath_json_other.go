//go:build !amd64

package parser

// useJSONKernel is false: there is no kernel for this architecture.
const useJSONKernel = false

func jsonLinesKernel(p *byte, n, s, hit, max int, starts *int, room int) (count, end int) {
	return 0, s
}
