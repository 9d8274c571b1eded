package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kcmtrace/kcmtrace/internal/shellquote"
)

// collectCmd is `kcmtrace collect`: the kubectl commands that dump what
// the analysis can use (cluster state, events, kubelet and controller
// logs) into one directory, then the analysis of it; with --exec it runs
// them with the user's kubeconfig and analyses the directory.
type collectCmd struct {
	Namespace string   `short:"n" help:"Namespace of the pods and claims (default: all namespaces)." placeholder:"NS"`
	Pod       string   `help:"A pod whose volumes are in trouble (its node's kubelet log is fetched)." placeholder:"POD"`
	PVC       string   `name:"pvc" help:"A claim to describe." placeholder:"PVC"`
	PV        string   `name:"pv" help:"A PersistentVolume to describe." placeholder:"PV"`
	Node      []string `help:"Nodes whose kubelet logs to fetch through Node Log Query (repeatable)." placeholder:"NODE"`
	Dir       string   `help:"Directory the commands write to." default:"kcmtrace-dump" placeholder:"DIR"`
	Exec      bool     `help:"Run the commands (the kubectl on PATH, with your kubeconfig), one file per kind into --dir, then analyze it with the log files given."`
	Logs      []string `arg:"" optional:"" name:"log" help:"Log files analysed together with the dump."`
}

// collectStep is one kubectl command and the file its stdout goes to. A
// step with capture sets that shell variable instead (its value replaces
// "$capture" in the words of later steps); a step with only comment is
// printed as a comment.
type collectStep struct {
	argv    []string
	file    string
	capture string
	comment string
}

// stateKinds are the cluster-scoped and namespaced kinds dumped, one file each.
var (
	clusterKinds    = []string{"persistentvolumes", "volumeattachments", "csinodes", "csidrivers", "storageclasses", "nodes"}
	namespacedKinds = []string{"persistentvolumeclaims", "pods"}
)

func (c *collectCmd) run(e env) error {
	steps := c.steps()
	if !c.Exec {
		fmt.Fprintln(e.stdout, "mkdir -p "+shellQuote(c.Dir))
		for _, s := range steps {
			fmt.Fprintln(e.stdout, s.line(c.Dir))
		}
		fmt.Fprintln(e.stdout, shellJoin(c.analyzeArgs()))
		return nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return &codeError{code: exitInput, msg: fmt.Sprintf("%s: %v", c.Dir, err)}
	}
	vars := map[string]string{}
	var ran, failed int
	for _, s := range steps {
		if s.comment != "" {
			continue
		}
		argv := expand(s.argv, vars)
		ran++
		if s.capture != "" {
			var out bytes.Buffer
			if err := execTo(e, argv, &out); err != nil {
				failed++
				continue
			}
			vars[s.capture] = strings.TrimSpace(out.String())
			continue
		}
		if strings.Contains(strings.Join(argv, " "), "$") { // a captured value is missing
			fmt.Fprintf(e.stderr, "kcmtrace: %s: skipped: the command it needs failed\n", shellWords(argv))
			failed++
			continue
		}
		if execToFile(e, argv, filepath.Join(c.Dir, s.file)) != nil {
			failed++
		}
	}
	if failed == ran {
		return &codeError{code: exitInput, msg: "no kubectl command succeeded"}
	}
	a := &analyzeCmd{FailOn: "none"}
	a.Paths, a.Pushdown, a.Color = c.analyzeArgs()[2:], "auto", "auto"
	err := a.run(e)
	if err == nil && failed > 0 {
		return &codeError{code: exitInput}
	}
	return err
}

// analyzeArgs is the analysis of the dump with the logs given.
func (c *collectCmd) analyzeArgs() []string {
	return append([]string{progName, "analyze", c.Dir}, c.Logs...)
}

// steps are the kubectl commands, in order: state, events, logs.
func (c *collectCmd) steps() []collectStep {
	ns := []string{"-A"} // lists: every namespace; one object: the current one
	var one []string
	if c.Namespace != "" {
		ns = []string{"-n", c.Namespace}
		one = ns
	}
	get := func(kind string, scope []string, format string) collectStep {
		argv := append(append([]string{"kubectl", "get", kind}, scope...), "-o", format)
		return collectStep{argv: argv, file: kind + "." + format}
	}
	describe := func(kind, name string, scope []string) collectStep {
		argv := append(append([]string{"kubectl", "describe", kind}, scope...), name)
		return collectStep{argv: argv, file: "describe-" + kind + ".txt"}
	}
	kubelet := func(node, file string) collectStep {
		return collectStep{argv: []string{"kubectl", "get", "--raw", "/api/v1/nodes/" + node + "/proxy/logs/?query=kubelet"}, file: file}
	}
	var out []collectStep
	for _, k := range clusterKinds {
		out = append(out, get(k, nil, "yaml"))
	}
	for _, k := range namespacedKinds {
		out = append(out, get(k, ns, "yaml"))
	}
	out = append(out, get("events", ns, "json"))
	if c.PVC != "" {
		out = append(out, describe("pvc", c.PVC, one))
	}
	if c.PV != "" {
		out = append(out, describe("pv", c.PV, nil))
	}
	if c.Pod != "" {
		out = append(out, describe("pod", c.Pod, one),
			collectStep{argv: append(append([]string{"kubectl", "get", "pod"}, one...), c.Pod, "-o", "jsonpath={.spec.nodeName}"), capture: "node"},
			kubelet("$node", "kubelet-pod-node.log"))
	}
	for _, n := range c.Node {
		out = append(out, kubelet(n, "kubelet-"+n+".log"))
	}
	return append(out,
		collectStep{comment: "self-managed control planes (kubeadm, …); on managed clusters export the controller-manager log from the provider's logging"},
		collectStep{argv: []string{"kubectl", "logs", "-n", "kube-system", "-l", "component=kube-controller-manager", "--tail=-1", "--timestamps"}, file: "kube-controller-manager.log"})
}

// line is the step as a shell line writing into dir.
func (c *collectStep) line(dir string) string {
	switch {
	case c.comment != "":
		return "# " + c.comment
	case c.capture != "":
		return c.capture + "=$(" + shellWords(c.argv) + ")"
	}
	return shellWords(c.argv) + " > " + shellQuote(filepath.Join(dir, c.file))
}

// shellWords quotes argv for a POSIX shell; a word holding a variable or a
// query string goes in double quotes (the variable is expanded).
func shellWords(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if strings.ContainsAny(a, "$?") && !strings.ContainsAny(a, "\"\\`") {
			out[i] = `"` + a + `"`
		} else {
			out[i] = shellQuote(a)
		}
	}
	return strings.Join(out, " ")
}

// expand replaces "$name" in the words by the captured values.
func expand(argv []string, vars map[string]string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		for k, v := range vars {
			a = strings.ReplaceAll(a, "$"+k, v)
		}
		out[i] = a
	}
	return out
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string { return shellquote.Quote(s) }
