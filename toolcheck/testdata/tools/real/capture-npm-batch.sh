#!/usr/bin/env bash
# capture-npm-batch.sh LIST
#
# Runs capture-npm.sh for every package in LIST (one "PACKAGE [ARGS]" per
# line; # starts a comment). Packages are installed N at a time (CAPTURE_BATCH,
# default 8) with one `npm install` into a shared prefix, one install after
# the other, and each batch is captured while the next one installs. A batch
# whose install fails (one package with a missing dependency fails them all)
# is installed in halves, recursively.
set -u
here=$(cd "$(dirname "$0")" && pwd)
list=${1:?usage: capture-npm-batch.sh LIST}
work=${CAPTURE_WORK:-/tmp/mcpcap}
export CAPTURE_WORK=$work
n=${CAPTURE_BATCH:-8}
mkdir -p "$work/batches" "$work/logs"
mapfile -t lines < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
pkgname() { local p=${1%% *}; case $p in @*@*) echo "${p%@*}" ;; @*) echo "$p" ;; *) echo "${p%@*}" ;; esac; }

npmi() { # npmi DIR PACKAGE...: one npm install into DIR
	local d=$1
	shift
	(cd "$d" && timeout 600 npm install --cache "$work/cache" --prefer-offline --fetch-retries=0 --ignore-scripts --no-audit --no-fund --loglevel=error "$@") >>"$d/install.log" 2>&1 </dev/null
}

install_some() { # install_some DIR PACKAGE...: all at once, or halves of them if that fails
	local d=$1
	shift
	npmi "$d" "$@" && return
	[ $# -le 1 ] && return
	local h=$(($# / 2))
	install_some "$d" "${@:1:h}"
	install_some "$d" "${@:h+1}"
}

install_batch() { # install_batch DIR LINE...
	local d=$1
	shift
	local pkgs=() l
	for l in "$@"; do pkgs+=("${l%% *}"); done
	mkdir -p "$d"
	[ -f "$d/package.json" ] || echo '{"name":"capture-batch","private":true}' >"$d/package.json"
	install_some "$d" "${pkgs[@]}"
	touch "$d/.installed"
}

capture_batch() { # capture_batch DIR LINE...
	local d=$1
	shift
	local l name
	for l in "$@"; do
		name=$(pkgname "$l")
		if [ ! -f "$d/node_modules/$name/package.json" ]; then
			printf '%s\t?\tinstall-failed\t%s\n' "$name" "$(grep -a 'npm error' "$d/install.log" | grep -vE 'complete log|^npm error *$' | grep -E 'code|404|ENOTFOUND|notarget|ERESOLVE|engine' | head -1 | cut -c1-120)" >>"$work/status.tsv"
			continue
		fi
		# shellcheck disable=SC2086
		CAPTURE_PREFIX=$d timeout 400 "$here/capture-npm.sh" $l </dev/null >/dev/null 2>&1
	done
}

prev_dir=""
prev=()
b=0
for ((i = 0; i < ${#lines[@]}; i += n)); do
	batch=("${lines[@]:i:n}")
	todo=()
	for l in "${batch[@]}"; do
		cut -f1 "$work/status.tsv" 2>/dev/null | grep -qxF "$(pkgname "$l")" || todo+=("$l")
	done
	[ ${#todo[@]} -eq 0 ] && continue
	b=$((b + 1))
	d=$work/batches/$(date +%s)-$b
	install_batch "$d" "${todo[@]}" &
	ip=$!
	[ -n "$prev_dir" ] && capture_batch "$prev_dir" "${prev[@]}"
	wait $ip
	prev_dir=$d
	prev=("${todo[@]}")
done
[ -n "$prev_dir" ] && capture_batch "$prev_dir" "${prev[@]}"
echo "batch done" >&2
