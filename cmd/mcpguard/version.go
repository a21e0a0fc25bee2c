package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newVersionCmd(env environment) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mcpguard version",
		Long: `Print the mcpguard version: the module version (a release tag such as
v0.1.0, or the pseudo-version of a build from a checkout), the VCS revision
it was built from, the Go release and the platform. mcpguard --version
prints the same line.`,
		Args: cobra.NoArgs,
		// Nothing to finish or undo when interrupted (interrupts.go).
		Annotations: onDemand(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), env.about)
			return nil
		},
	}
}
