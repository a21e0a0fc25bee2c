# METADATA
# title: npx servers must pin an exact package version
# description: |
#   An error for every server that runs npx (directly, or through cmd /c on
#   Windows) with a package that is not pinned to an exact version:
#   `npx -y @acme/tools` and `npx -y @acme/tools@latest` fail, `npx -y
#   @acme/tools@1.4.2` passes. The shipped rule MCPG-C002 reports the same as a
#   warning; this policy makes it an error that blocks the server.
package mcpguard.custom.pinned_npx

# facts.program is the program a stdio server runs, lower-cased and without its
# directory or .exe/.cmd suffix, looking through `cmd /c`; facts.program_args
# are its arguments.
npx if input.server.facts.program == "npx"

args := input.server.facts.program_args

# The packages: every value of -p/--package, or else the first operand. A set,
# not a single value: `npx -p a -p b tool` names two packages, and a complete
# rule (`package_spec := ...`) would fail with a conflict on such input.
packages contains args[i + 1] if {
	some i, a in args
	a in {"-p", "--package"}
	i + 1 < count(args)
}

packages contains substring(a, count("--package="), -1) if {
	some a in args
	startswith(a, "--package=")
}

packages contains operands[0] if {
	not package_flag
	operands := [x | some x in args; not startswith(x, "-")]
}

package_flag if {
	some a in args
	regex.match(`^(-p|--package|--package=.*)$`, a)
}

# name strips any version: "@acme/tools@latest" -> "@acme/tools".
name(spec) := regex.replace(spec, `^(@?[^@]+)@.*$`, "$1")

# name@1.2.3 or @scope/name@1.2.3, with an optional pre-release or build.
exact(spec) if regex.match(`^(@[^/@]+/)?[^@]+@[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$`, spec)

deny contains {
	"id": "ACME-NPX-PIN",
	"msg": sprintf("server %q runs %s with npx without an exact version; pin it, e.g. %s@1.2.3", [input.server.name, spec, name(spec)]),
	"evidence": {"package": spec},
} if {
	npx
	some spec in packages
	not exact(spec)
	not startswith(spec, ".")
	not startswith(spec, "/")
}
