package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kcmtrace/kcmtrace/internal/shellquote"
)

// collectCmd is `kcmtrace collect`: the kubectl commands that dump what
// the analysis can use (cluster state, events, kubelet and controller
// logs) into one directory, then the analysis of it.
type collectCmd struct {
	Namespace string   `short:"n" help:"Namespace of the pods and claims (default: all namespaces)." placeholder:"NS"`
	Pod       string   `help:"A pod whose volumes are in trouble (its node's kubelet log is fetched)." placeholder:"POD"`
	PVC       string   `name:"pvc" help:"A claim to describe." placeholder:"PVC"`
	PV        string   `name:"pv" help:"A PersistentVolume to describe." placeholder:"PV"`
	Node      []string `help:"Nodes whose kubelet logs to fetch through Node Log Query (repeatable)." placeholder:"NODE"`
	Dir       string   `help:"Directory the commands write to." default:"kcmtrace-dump" placeholder:"DIR"`
}

func (c *collectCmd) run(e env) error {
	for _, cmd := range c.commands() {
		fmt.Fprintln(e.stdout, cmd)
	}
	return nil
}

// commands are the shell lines, in order: state, events, logs, analysis.
func (c *collectCmd) commands() []string {
	q := shellQuote
	dir := q(c.Dir)
	at := func(name string) string { return q(filepath.Join(c.Dir, name)) }
	ns, one := "-A", "" // lists: every namespace; one object: the current one
	if c.Namespace != "" {
		ns = "-n " + q(c.Namespace)
		one = ns + " "
	}
	out := []string{
		"mkdir -p " + dir,
		"kubectl get persistentvolumes,volumeattachments,csinodes,csidrivers,storageclasses,nodes -o yaml > " + at("cluster.yaml"),
		"kubectl get persistentvolumeclaims,pods " + ns + " -o yaml > " + at("workloads.yaml"),
		"kubectl get events " + ns + " -o json > " + at("events.json"),
	}
	if c.PVC != "" {
		out = append(out, "kubectl describe pvc "+one+q(c.PVC)+" > "+at("describe-pvc.txt"))
	}
	if c.PV != "" {
		out = append(out, "kubectl describe pv "+q(c.PV)+" > "+at("describe-pv.txt"))
	}
	if c.Pod != "" {
		out = append(out, "kubectl describe pod "+one+q(c.Pod)+" > "+at("describe-pod.txt"))
		out = append(out, "node=$(kubectl get pod "+one+q(c.Pod)+" -o jsonpath='{.spec.nodeName}')",
			`kubectl get --raw "/api/v1/nodes/$node/proxy/logs/?query=kubelet" > `+at("kubelet-pod-node.log"))
	}
	for _, n := range c.Node {
		out = append(out, `kubectl get --raw "/api/v1/nodes/`+strings.Trim(q(n), "'")+`/proxy/logs/?query=kubelet" > `+at("kubelet-"+n+".log"))
	}
	out = append(out,
		"# self-managed control planes (kubeadm, …); on managed clusters export the controller-manager log from the provider's logging",
		"kubectl logs -n kube-system -l component=kube-controller-manager --tail=-1 --timestamps > "+at("kube-controller-manager.log"),
		"kcmtrace analyze "+dir,
	)
	return out
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string { return shellquote.Quote(s) }
