// Command vljson renders a klog log (stdin) as a VictoriaLogs
// /select/logsql/query JSON Lines export (stdout), dated in the generator's
// year, its records spread over -pods kube-controller-manager pods:
//
//	go run ./cmd/kcmgen -size 128MiB -shape churn -o kcm.log
//	go run ./internal/exportgen/vljson < kcm.log > kcm.vl.jsonl
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kcmtrace/kcmtrace/internal/exportgen"
	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

func main() {
	pods := flag.Int("pods", 1, "kube-controller-manager pods the records are spread over")
	run := flag.Int("run", 1000, "records per pod run")
	flag.Parse()
	cfg := exportgen.VictoriaLogsConfig{Year: loggen.DefaultStart.Year(), Pods: *pods, Run: *run}
	if err := exportgen.VictoriaLogs(os.Stdout, os.Stdin, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "vljson:", err)
		os.Exit(1)
	}
}
