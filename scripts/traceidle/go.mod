module github.com/kcmtrace/kcmtrace/scripts/traceidle

go 1.26.0

require golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4
