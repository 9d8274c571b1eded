// Command cwjson renders a klog log (stdin) as an `aws logs
// filter-log-events` JSON export (stdout), dated in the generator's year:
//
//	go run ./cmd/kcmgen -size 1GiB -o kcm.log
//	go run ./internal/exportgen/cwjson < kcm.log > kcm.cloudwatch.json
package main

import (
	"fmt"
	"os"

	"github.com/kcmtrace/kcmtrace/internal/exportgen"
	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

func main() {
	if err := exportgen.CloudWatchEvents(os.Stdout, os.Stdin, loggen.DefaultStart.Year()); err != nil {
		fmt.Fprintln(os.Stderr, "cwjson:", err)
		os.Exit(1)
	}
}
