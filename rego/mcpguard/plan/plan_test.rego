package mcpguard.plan_test

import data.mcpguard.plan
import data.mcpguard.policy_test as fx

# Servers whose facts name their launcher (the policy tests' stdio leaves
# them empty), so that the hygiene rules find something.
npx := fx.with_(fx.stdio("tool", ["npx", "-y", "pkg"]), {"facts": {"program": "npx", "program_args": ["-y", "pkg"]}})

uvx := fx.with_(fx.stdio("tool", ["uvx", "pkg"]), {"facts": {"program": "uvx", "program_args": ["pkg"]}})

cases := [
	[npx, fx.ctx(null, [])],
	[npx, fx.ctx(null, [fx.name_e("tool", 3)])],
	[uvx, fx.ctx([fx.name_e("other", 1)], [])],
	[fx.http("web", "http://mcp.acme.example/"), fx.ctx([fx.name_e("web", 1)], [])],
]

# plan.server is the two queries topdown evaluates for a server, joined:
# the verdict query's verdict, admission and findings, then the hygiene
# findings.
test_server_joins_the_queries if {
	every pair in cases {
		[s, c] := pair
		shipped := data.mcpguard.main.shipped with input as {"server": s, "context": c}
		hygiene := data.mcpguard.hygiene.findings with input as {"server": s, "context": c}
		v := plan.server with input as {"server": s, "context": c}
		v == [shipped.verdict, shipped.admission, shipped.findings, hygiene]
	}
}

test_server_reports_both_halves if {
	[s, c] := cases[1]
	[verdict, admission, findings, hygiene] := plan.server with input as {"server": s, "context": c}
	verdict.allowed == false
	admission == ""
	count([f | some f in findings; f.rule == "MCPG-P001"]) == 1
	count([f | some f in hygiene; f.rule == "MCPG-C002"]) == 1
}
