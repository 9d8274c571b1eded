package main

// Shell completion (bash, zsh, fish) with github.com/jotaen/kong-completion:
// completions come from the same kong model as the flags, and the rule,
// format and kind values are predicted from the registries.

import (
	"github.com/alecthomas/kong"
	kongcompletion "github.com/jotaen/kong-completion"
	"github.com/posener/complete"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
)

// completionCmd is `kcmtrace completion SHELL`: it prints the script to
// source, the kubectl way (`source <(kcmtrace completion bash)`).
type completionCmd struct {
	Shell string `arg:"" help:"bash, zsh or fish." enum:"bash,zsh,fish"`
}

func (c *completionCmd) runCtx(_ env, ctx *kong.Context) error {
	cc := kongcompletion.Completion{Shell: c.Shell, Code: true}
	return cc.Run(ctx)
}

// predictors are the dynamic completions the predictor:"…" tags name.
func predictors() map[string]complete.Predictor {
	kinds := make([]string, 0, len(parser.Kinds()))
	for _, k := range parser.Kinds() {
		kinds = append(kinds, k.String())
	}
	return map[string]complete.Predictor{
		"rule":   complete.PredictSet(rules.Names()...),
		"format": complete.PredictSet(formatWords...),
		"kind":   complete.PredictSet(kinds...),
	}
}

// registerCompletion answers a shell's completion request (COMP_LINE set)
// and exits; otherwise it does nothing.
func registerCompletion(p *kong.Kong) {
	kongcompletion.Register(p, kongcompletion.WithPredictors(predictors()))
}
