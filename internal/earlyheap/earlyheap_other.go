//go:build !linux || !(amd64 || arm64)

package earlyheap

func init() { Outcome.Skipped = "not Linux on amd64 or arm64" }
