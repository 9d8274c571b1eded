package parser

import "golang.org/x/sys/cpu"

// useJSONKernel reports whether jsonLinesKernel can run here (AVX2 for the
// masks, BMI1 and POPCNT for TZCNT and POPCNT).
var useJSONKernel = cpu.X86.HasAVX2 && cpu.X86.HasBMI1 && cpu.X86.HasPOPCNT

// jsonLinesKernel reads lines of p[:n] from s, a line start, while each
// starts jsonHead, has its newline before hit and among the bytes it scans
// (64 at a time from s, each 64 in p[:n] and starting before hit), and has
// 9 to max bytes before its newline (so that at least 8 remain without a
// CR): lines jsonLogRun takes. It stops at the first line that is not so
// (jsonLogRun then decides) or after room lines, and reads nothing past
// p[:n]. It writes the starts of the count lines it takes to
// starts[:count]; end is the offset after the last one's newline (s when
// none).
//
//go:noescape
func jsonLinesKernel(p *byte, n, s, hit, max int, starts *int, room int) (count, end int)
