// Package swar owns the word-at-a-time byte tests the parser and the
// report share (SIMD within a register): eight bytes of text read as one
// little-endian uint64, each test setting the high bit of every byte of
// the word that is in its class. Callers find the first such byte with
// First, or ask whether there is one (mask != 0). It knows nothing of logs
// or JSON documents, only of the byte classes JSON strings and terminals
// care about.
//
// The tests are exact for the lowest flagged byte: (v - ones) &^ v flags
// the zero bytes of v, and a borrow out of a zero byte may flag the byte
// above it too, but never one below the first true one. So First is
// always the first byte in the class, and a mask is zero exactly when no
// byte is; the flags above the first mean nothing.
package swar

import "math/bits"

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// Load is the first eight bytes of s (it must have eight) as one
// little-endian word; the compiler makes it one load.
func Load(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// First is the index (0-7) of the lowest byte a non-zero mask flags.
func First(mask uint64) int { return bits.TrailingZeros64(mask) / 8 }

// NonASCII flags the bytes ≥ 0x80.
func NonASCII(x uint64) uint64 { return x & highs }

// JSONStops flags the bytes a JSON string's plain run ends at: '"', '\\'
// and the control bytes below 0x20. Bytes ≥ 0x80 are not flagged.
func JSONStops(x uint64) uint64 {
	q, b := x^(ones*'"'), x^(ones*'\\')
	return ((q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x) & highs
}

// NotPlainJSON flags what JSONStops flags and the bytes ≥ 0x80: a string
// with none of them is printable ASCII that JSON writes as it is.
func NotPlainJSON(x uint64) uint64 { return JSONStops(x) | x&highs }

// Unprintable flags the bytes that are not printable ASCII (0x20-0x7e):
// control bytes, DEL and the bytes ≥ 0x80.
func Unprintable(x uint64) uint64 {
	del := x ^ (ones * 0x7f)
	return ((x-ones*0x20)&^x | (del-ones)&^del | x) & highs
}

// IsASCII reports whether s has no byte ≥ 0x80, eight bytes a test.
func IsASCII(s string) bool {
	for len(s) >= 8 {
		if NonASCII(Load(s)) != 0 {
			return false
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
