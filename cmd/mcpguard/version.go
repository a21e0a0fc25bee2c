package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func newVersionCmd(env environment) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mcpguard version",
		Args:  cobra.NoArgs,
		// Nothing to finish or undo when interrupted (interrupts.go).
		Annotations: onDemand(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "mcpguard %s (%s, %s/%s)\n", env.version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
