package parser

import "golang.org/x/sys/cpu"

// useBareKernel reports whether bareKlogKernel can run here (AVX2 for the
// masks, BMI1 and BMI2 for TZCNT and SHRX).
var useBareKernel = cpu.X86.HasAVX2 && cpu.X86.HasBMI1 && cpu.X86.HasBMI2

// bareKlogKernel reads lines of p[:n] from s, a line start, while each is
// a bare klog header line that bareKlogRun would take whose header matches
// a reference line already taken: the same "MMDD HH:MM" (ref8: bytes 1-8
// of the reference, little endian; ref2: bytes 9-10), a level letter, a
// second up to 60, an optional fraction, blanks and a thread-id digit
// within the line's first 32 bytes, and a newline before hit with at most
// max bytes before it (the bytes up to the thread-id digit are none). It stops at the first line it is not
// sure of (bareKlogRun then decides), and reads nothing past p[:n]. count
// lines were taken; prev and last are the starts of the last two (-1 when
// none), end the offset after the last one's newline (s when none).
//
//go:noescape
func bareKlogKernel(p *byte, n, s, hit, max int, ref8, ref2 uint64) (count, prev, last, end int)
