#!/usr/bin/env bash
# capture-git.sh GIT-DIR COMMIT OWNER/REPO [SUBDIR] [-- SERVER-ARG...]
#
# Captures an MCP server that is on GitHub but not on npm: exports COMMIT of
# the repository at GIT-DIR (a bare mirror) into a scratch directory,
# installs its dependencies from the npm registry (npm install
# --ignore-scripts), runs its `build` script if it has one (with no network,
# unshare -n), packs it with `npm pack --ignore-scripts`, installs the
# tarball into a scratch prefix, and hands that prefix to capture-npm.sh,
# which starts and captures it exactly as an npm package (same sandbox, same
# dummies, same split by the package.json name, same duplicate check). The
# README row names OWNER/REPO@COMMIT.
#
# SUBDIR: the folder of the package inside the repository (a monorepo).
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=${CAPTURE_WORK:-/tmp/mcpcap}
git_dir=${1:?usage: capture-git.sh GIT-DIR COMMIT OWNER/REPO [SUBDIR] [-- ARGS]}
commit=${2:?commit}
repo=${3:?owner/repo}
shift 3
sub=.
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	sub=$1
	shift
fi
[ "${1:-}" = -- ] && shift
slug=$(printf %s "$repo" | tr 'A-Z/' 'a-z+')
src=$work/git/$slug-src
pre=$work/git/$slug-prefix
log=$work/logs/git-$slug.log
mkdir -p "$work/git" "$work/logs" "$work/cache"
rm -rf "$src" "$pre"
mkdir -p "$src" "$pre"
git --git-dir="$git_dir" archive "$commit" | tar -x -C "$src" || exit 2
pkg=$src/$sub
[ -f "$pkg/package.json" ] || {
	echo "$repo: no package.json in $sub" >&2
	exit 2
}
name=$(node -p "require('$pkg/package.json').name")
# A package already captured (from npm or an earlier build) is not captured
# again: the file is never overwritten.
nslug=$(printf %s "$name" | tr 'A-Z' 'a-z' | sed -e 's/^@//' -e 's#/#-#g' -e 's/[^a-z0-9._-]/-/g')
if [ -e "$here/dev/$nslug.json" ] || [ -e "$here/heldout/$nslug.json" ] || [ -e "$here/$nslug.json" ]; then
	printf '%s	?	already-here	%s
' "$name" "$repo" >>"$work/status.tsv"
	echo "$name: already here" >&2
	exit 7
fi
(
	cd "$pkg" || exit 1
	timeout 600 npm install --cache "$work/cache" --ignore-scripts --no-audit --no-fund --loglevel=error &&
		if node -e 'process.exit(require("./package.json").scripts?.build ? 0 : 1)'; then
			timeout 600 unshare -n npm run build
		fi &&
		timeout 300 npm pack --ignore-scripts --pack-destination "$pre"
) >"$log" 2>&1 </dev/null || {
	echo "$repo: install or build failed (see $log)" >&2
	exit 2
}
tgz=$(ls "$pre"/*.tgz | head -1)
echo '{"name":"capture-target","private":true}' >"$pre/package.json"
(cd "$pre" && timeout 600 npm install --cache "$work/cache" --ignore-scripts --no-audit --no-fund --loglevel=error "$tgz") >>"$log" 2>&1 </dev/null || {
	echo "$repo: install of the packed tarball failed (see $log)" >&2
	exit 2
}
CAPTURE_PREFIX=$pre CAPTURE_SOURCE="GitHub \`$repo@${commit:0:12}\`$([ "$sub" != . ] && echo " \`$sub\`"), built from source" \
	exec "$here/capture-npm.sh" "$name" "$@"
