//go:build !linux

package thp

// Setting returns "": only Linux has the settings.
func Setting(string) string { return "" }
