package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// Severity orders findings. The zero value is "none".
type Severity int

// Severities, least to most severe.
const (
	None Severity = iota
	Info
	Warning
	Critical
)

// String returns "none", "info", "warning" or "critical".
func (s Severity) String() string {
	switch s {
	case None:
		return "none"
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Critical:
		return "critical"
	}
	return "severity(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText encodes a severity as its name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a severity name (see ParseSeverity).
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity parses "none", "info", "warning" or "critical" (any case;
// "warn" and "crit" are accepted too).
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none":
		return None, nil
	case "info":
		return Info, nil
	case "warning", "warn":
		return Warning, nil
	case "critical", "crit":
		return Critical, nil
	}
	return None, fmt.Errorf("unknown severity %q (valid: none, info, warning, critical)", s)
}
