// Package all lists the built-in inspector spec kinds, in the order the
// help shows them. A new provider or importer is its package (with a
// function returning its spec.Kind) plus one line here.
package all

import (
	"slices"

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
	return spec.NewRegistry(slices.Concat(
		[]spec.Kind{
			builtin.Kind(),
			execinspector.Kind(),
			saved.Kind(),
		},
		llm.Kinds(), // openai:MODEL, anthropic:MODEL: one per provider (programs/llm/provider.go)
		[]spec.Kind{
			importers.InspectKind(),
			importers.PromptfooKind(),
			panel.Kind(),
		},
	)...)
}
