package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/policy"
)

// PolicyTestOptions are the flags of `mcpguard policy test`.
type PolicyTestOptions struct {
	Dirs    []string
	Verbose bool
}

func newPolicyCmd(env environment) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Work with Rego policies",
	}
	cmd.AddCommand(newPolicyTestCmd(env))
	return cmd
}

const policyTestLong = `Run the Rego unit tests (rules named test_*) of the shipped policies and of
custom policies in DIR (files or directories, *_test.rego beside the policies).
Tests run in-process with mcpguard's builtins; no opa binary is needed.

Exit codes: 0 every test passed, 1 a test failed, 2 a policy does not compile.`

func newPolicyTestCmd(_ environment) *cobra.Command {
	opts := &PolicyTestOptions{}
	cmd := &cobra.Command{
		Use:     "test [DIR...]",
		Short:   "Run the shipped and custom Rego tests",
		Long:    policyTestLong,
		Example: "  mcpguard policy test\n  mcpguard policy test policies/",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dirs = args
			return runPolicyTest(cmd, opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "list every test, not only failures")
	return cmd
}

func runPolicyTest(cmd *cobra.Command, opts *PolicyTestOptions) error {
	results, err := policy.RunTests(cmd.Context(), opts.Dirs)
	if err != nil {
		return &exitCodeError{code: exitError, err: fmt.Errorf("load policy: %w", err)}
	}
	out := cmd.OutOrStdout()
	pass, fail, skip := 0, 0, 0
	for _, r := range results {
		status := "PASS"
		switch {
		case r.Skip:
			status = "SKIP"
			skip++
		case r.Pass:
			pass++
		default:
			status = "FAIL"
			fail++
		}
		if status != "PASS" || opts.Verbose {
			fmt.Fprintf(out, "%s %s:%d: %s.%s", status, r.Location.Path, r.Location.Line, r.Package, r.Name)
			if r.Err != "" {
				fmt.Fprintf(out, ": %s", r.Err)
			}
			fmt.Fprintln(out)
			if r.Output != "" && status == "FAIL" {
				fmt.Fprintf(out, "  output: %s\n", r.Output)
			}
		}
	}
	fmt.Fprintf(out, "%d passed, %d failed, %d skipped\n", pass, fail, skip)
	if fail > 0 {
		return &exitCodeError{code: exitFindings}
	}
	return nil
}
