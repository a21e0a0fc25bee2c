package main

import (
	"encoding/json"
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
	cmd.AddCommand(newPolicyTestCmd(env), newPolicyCapabilitiesCmd())
	return cmd
}

const policyCapabilitiesLong = `Print the capabilities mcpguard compiles custom policies with, as OPA's
capabilities JSON: OPA's builtins without those a scan must not run
(http.send, net.lookup_ip_addr, ...), plus mcpguard's own functions
(mcpguard.url_match, ...). Build organisation bundles with them, so that
'opa build' accepts mcpguard's functions and refuses what mcpguard refuses:

  mcpguard policy capabilities > mcpguard-capabilities.json
  opa build --bundle --capabilities mcpguard-capabilities.json \
    --signing-key org.key --signing-alg RS256 -o bundle.tar.gz examples/fleet/bundle

See docs/fleet.md.`

func newPolicyCapabilitiesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "capabilities",
		Short: "Print the OPA capabilities of mcpguard's engine (for opa build --capabilities)",
		Long:  policyCapabilitiesLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(policy.Capabilities())
		},
	}
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
