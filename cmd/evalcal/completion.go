package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evalcal/evalcal/programs/all"
)

// completionShells are the shells `evalcal completion` writes a script
// for, in the order the help lists them.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// newCmdCompletion is `evalcal completion SHELL`: cobra's completion
// script for the shell on stdout. The script asks the binary itself
// (evalcal __complete ...) for commands, flags and flag values.
func newCmdCompletion(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "completion SHELL",
		Short: "print a shell completion script (bash, zsh, fish or powershell)",
		Long: `Print the completion script for SHELL on stdout. Commands, flags, and the values
of --format, --inspector and --binning complete; paths complete as files.

  bash:        source <(evalcal completion bash)
               (or save it as /etc/bash_completion.d/evalcal; needs bash-completion v2)
  zsh:         evalcal completion zsh > "${fpath[1]}/_evalcal"   (compinit must be on)
  fish:        evalcal completion fish > ~/.config/fish/completions/evalcal.fish
  powershell:  evalcal completion powershell | Out-String | Invoke-Expression`,
		Example:   "  evalcal completion bash > ~/.local/share/bash-completion/completions/evalcal",
		ValidArgs: completionShells,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorHint("Run 'evalcal completion --help' for usage.",
					"completion: want one SHELL (%s), got %d arguments", strings.Join(completionShells, ", "), len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			root, w := c.Root(), f.io.Out
			var err error
			switch args[0] {
			case "bash":
				err = root.GenBashCompletionV2(w, true)
			case "zsh":
				err = root.GenZshCompletion(w)
			case "fish":
				err = root.GenFishCompletion(w, true)
			case "powershell":
				err = root.GenPowerShellCompletionWithDesc(w)
			default:
				return usageErrorHint("Run 'evalcal completion --help' for usage.",
					"completion: unknown shell %q; want %s", args[0], strings.Join(completionShells, ", "))
			}
			if err != nil {
				return fmt.Errorf("completion: write the %s script: %w", args[0], err)
			}
			return nil
		},
	}
}

// registerFlagCompletions gives the flags with a fixed set of values
// their completions. cobra keeps these in a package-level table keyed by
// flag, so it is done only when the shell asks for completions (one per
// process), never for an ordinary command.
func registerFlagCompletions(root *cobra.Command) {
	values := map[string][]string{
		"format":    {"yaml", "json", "markdown", "html"},
		"binning":   {"equal-frequency", "fixed"},
		"inspector": all.Kinds().Prefixes(),
	}
	for _, c := range root.Commands() {
		for name, v := range values {
			if c.Flags().Lookup(name) == nil {
				continue
			}
			choices := v
			if name == "format" && c.Name() == "gate" {
				choices = []string{"yaml", "json"}
			}
			directive := cobra.ShellCompDirectiveNoFileComp
			if name == "inspector" {
				directive |= cobra.ShellCompDirectiveNoSpace
			}
			_ = c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(choices, directive))
		}
	}
}
