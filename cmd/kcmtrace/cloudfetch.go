package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/shellquote"
	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// exportFilters are the line filters of the cloud export commands (README
// "Where the logs are" and `kcmtrace fetch`), built from the parser's
// token list: a regular expression (as it goes inside single quotes, and
// with its double quotes escaped for a double-quoted query string) and
// Cloud Logging's OR list.
func exportFilters() (re, reQuoted, orList string) {
	var alt, or []string
	for _, t := range classifier.PrefilterTokens() {
		alt = append(alt, regexp.QuoteMeta(string(t)))
		or = append(or, `"`+strings.ReplaceAll(string(t), `"`, `\"`)+`"`)
	}
	re = strings.Join(alt, "|")
	return re, strings.ReplaceAll(re, `"`, `\"`), "(" + strings.Join(or, " OR ") + ")"
}

// fetchCmd is `kcmtrace fetch gke|eks|aks`: the cloud CLI commands that
// export the KCM and kubelet logs of a window with the pushdown filter.
// No cloud SDK: the user's own CLI and login do the work.
type fetchCmd struct {
	Cloud         string `arg:"" enum:"gke,eks,aks" help:"gke (gcloud logging read), eks (aws logs filter-log-events) or aks (az monitor log-analytics query)."`
	Cluster       string `help:"Cluster name (GKE, EKS)." placeholder:"NAME"`
	Project       string `help:"GKE: the Google Cloud project." placeholder:"PROJECT"`
	Region        string `help:"EKS: the AWS region." placeholder:"REGION"`
	Workspace     string `help:"AKS: the Log Analytics workspace id the diagnostic setting sends to." placeholder:"ID"`
	ResourceGroup string `help:"AKS: the resource group (said in the comment; the query needs only the workspace)." placeholder:"GROUP"`
	Since         string `help:"Window start: RFC 3339 or a duration before now (default 24h)." default:"24h" placeholder:"TIME"`
	Until         string `help:"Window end: RFC 3339 or a duration before now (default now)." placeholder:"TIME"`
	Exec          bool   `help:"Run the commands (with your own cloud login) and write their output to --out DIR, then analyze it."`
	Out           string `help:"With --exec: the directory for the exports." default:"." placeholder:"DIR"`
}

// cloudCommand is one export: what it fetches, its argv and its file.
type cloudCommand struct {
	what string
	argv []string
	file string
}

// cloudCommands builds the export commands for [since, until).
func (c *fetchCmd) cloudCommands(since, until time.Time) []cloudCommand {
	re, reQuoted, orList := exportFilters()
	t0, t1 := since.UTC().Format(time.RFC3339), until.UTC().Format(time.RFC3339)
	cluster := c.Cluster
	if cluster == "" {
		cluster = "CLUSTER"
	}
	switch c.Cloud {
	case "gke":
		project := []string{}
		if c.Project != "" {
			project = []string{"--project", c.Project}
		}
		window := fmt.Sprintf(`timestamp>="%s" AND timestamp<"%s"`, t0, t1)
		return []cloudCommand{
			{"KCM (control-plane logs need the CONTROLLER_MANAGER component enabled)", append(append([]string{"gcloud", "logging", "read"}, project...), "--format=json",
				fmt.Sprintf(`resource.type="k8s_control_plane_component" AND resource.labels.cluster_name="%s" AND resource.labels.component_name="controller-manager" AND %s AND jsonPayload.message:%s`, cluster, window, orList)), "kcm.json"},
			{"kubelet", append(append([]string{"gcloud", "logging", "read"}, project...), "--format=json",
				fmt.Sprintf(`resource.type="k8s_node" AND resource.labels.cluster_name="%s" AND logName:"logs/kubelet" AND %s AND jsonPayload.MESSAGE:%s`, cluster, window, orList)), "kubelet.json"},
		}
	case "eks":
		region := []string{}
		if c.Region != "" {
			region = []string{"--region", c.Region}
		}
		span := []string{"--start-time", fmt.Sprint(since.UnixMilli()), "--end-time", fmt.Sprint(until.UnixMilli()), "--filter-pattern", "%" + re + "%", "--output", "json"}
		return []cloudCommand{
			{"KCM (control-plane logging must be enabled for controllerManager)", append(append([]string{"aws", "logs", "filter-log-events"}, region...),
				append([]string{"--log-group-name", "/aws/eks/" + cluster + "/cluster", "--log-stream-name-prefix", "kube-controller-manager"}, span...)...), "kcm.json"},
			{"kubelet (Container Insights ships it to the dataplane group)", append(append([]string{"aws", "logs", "filter-log-events"}, region...),
				append([]string{"--log-group-name", "/aws/containerinsights/" + cluster + "/dataplane", "--log-stream-name-prefix", "kubelet"}, span...)...), "kubelet.json"},
		}
	default: // aks
		ws := c.Workspace
		if ws == "" {
			ws = "WORKSPACE_ID"
		}
		return []cloudCommand{
			{"KCM (diagnostic setting with kube-controller-manager to the workspace" + strings.TrimSuffix(" of "+c.ResourceGroup, " of ") + ")",
				[]string{"az", "monitor", "log-analytics", "query", "-w", ws, "-o", "json", "--analytics-query",
					fmt.Sprintf(`AKSControlPlane | where TimeGenerated >= datetime(%s) and TimeGenerated < datetime(%s) and Category == "kube-controller-manager" | where Message matches regex "%s"`, t0, t1, reQuoted)}, "kcm.json"},
		}
	}
}

func (c *fetchCmd) run(e env) error {
	now := time.Now().UTC()
	since, err := parseWhen(c.Since, now)
	if err != nil {
		return usageErr("--since %s: %v", c.Since, err)
	}
	until := now
	if c.Until != "" {
		if until, err = parseWhen(c.Until, now); err != nil {
			return usageErr("--until %s: %v", c.Until, err)
		}
	}
	cmds := c.cloudCommands(since, until)
	if !c.Exec {
		for _, cc := range cmds {
			fmt.Fprintf(e.stdout, "# %s\n%s > %s\n", cc.what, shellJoin(cc.argv), cc.file)
		}
		fmt.Fprintf(e.stdout, "# then\nkcmtrace analyze %s\n", strings.Join(files(cmds, ""), " "))
		return nil
	}
	var failed int
	var got []string // a failed export leaves no file
	for _, cc := range cmds {
		path := filepath.Join(c.Out, cc.file)
		if execToFile(e, cc.argv, path) != nil {
			failed++
		} else {
			got = append(got, path)
		}
	}
	if failed == len(cmds) {
		return &codeError{code: exitInput, msg: "no export command succeeded"}
	}
	a := &analyzeCmd{FailOn: "none"}
	a.Paths, a.Pushdown, a.Color = got, "auto", "auto"
	err = a.run(e)
	if err == nil && failed > 0 {
		return &codeError{code: exitInput}
	}
	return err
}

func files(cmds []cloudCommand, dir string) []string {
	var out []string
	for _, cc := range cmds {
		out = append(out, filepath.Join(dir, cc.file))
	}
	return out
}

// shellJoin quotes argv for a POSIX shell: words with anything but safe
// characters go in single quotes.
func shellJoin(argv []string) string { return shellquote.Join(argv) }
