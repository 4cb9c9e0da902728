// Package all lists the built-in inspector spec kinds, in the order the
// help shows them. A new provider or importer is its package (with a
// function returning its spec.Kind) plus one line here.
package all

import (
	"github.com/evalcal/evalcal/programs/builtin"
	execinspector "github.com/evalcal/evalcal/programs/exec"
	"github.com/evalcal/evalcal/programs/importers"
	"github.com/evalcal/evalcal/programs/llm"
	"github.com/evalcal/evalcal/programs/panel"
	"github.com/evalcal/evalcal/programs/saved"
	"github.com/evalcal/evalcal/programs/spec"
)

// Kinds returns the registry of every built-in spec kind.
func Kinds() *spec.Registry {
	return spec.NewRegistry(
		builtin.Kind(),
		execinspector.Kind(),
		saved.Kind(),
		llm.Kind(llm.OpenAI),
		llm.Kind(llm.Anthropic),
		importers.InspectKind(),
		importers.PromptfooKind(),
		panel.Kind(),
	)
}
