package report

// The rules as data: `kcmtrace rules --format json` and `explain --format json`.

import (
	"io"

	json "github.com/goccy/go-json"

	"github.com/kcmtrace/kcmtrace/rules"
)

// SchemaRules names the JSON of `kcmtrace rules`.
const SchemaRules = "kcmtrace/rules/v1"

type wireRuleParam struct {
	Key     string `json:"key"`
	Default string `json:"default"`
	Help    string `json:"help"`
}

type wireRule struct {
	Name        string          `json:"name"`
	Severity    string          `json:"severity"`
	Title       string          `json:"title"`
	Explanation string          `json:"explanation"`
	Next        string          `json:"next"`
	Params      []wireRuleParam `json:"params"`
}

type wireRules struct {
	Schema string     `json:"schema"`
	Rules  []wireRule `json:"rules"`
}

func toWireRule(r rules.Rule) wireRule {
	w := wireRule{Name: r.Name, Severity: r.Severity.String(), Title: r.Doc.Title,
		Explanation: r.Doc.Explanation, Next: r.Doc.Next, Params: []wireRuleParam{}}
	for _, p := range r.Params {
		w.Params = append(w.Params, wireRuleParam(p))
	}
	return w
}

// RulesJSON writes the rules with their documentation and settings.
func RulesJSON(w io.Writer, rs []rules.Rule, o Options) error {
	out := wireRules{Schema: SchemaRules, Rules: []wireRule{}}
	for _, r := range rs {
		out.Rules = append(out.Rules, toWireRule(r))
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// RuleFormats are the formats of `kcmtrace rules` (and, with one rule, of `explain`).
var RuleFormats = Formats[[]rules.Rule]{Default: "text", ByName: map[string]Renderer[[]rules.Rule]{
	"text": RenderFunc[[]rules.Rule](RulesTable),
	"json": RenderFunc[[]rules.Rule](RulesJSON),
	"yaml": yamlOf(RenderFunc[[]rules.Rule](RulesJSON)),
	"name": RenderFunc[[]rules.Rule](RuleNames),
}}
