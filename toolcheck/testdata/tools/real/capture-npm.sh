#!/usr/bin/env bash
# capture-npm.sh PACKAGE [SERVER-ARG...]
#
# Installs one MCP server from npm into a scratch directory, runs it with no
# network (unshare -n, in a PID namespace too) and dummy credentials,
# records its tools/list result with the official SDK client (capture.mjs
# beside this script), kills the whole process group, and files the result
# under dev/ or heldout/.
#
# The split is fixed by the package name alone: the first 8 hex digits of
# sha256("mcpguard-corpus:" + name), read as a number, modulo 100; below 60
# goes to dev/, the rest to heldout/. It never depends on the tools.
#
# A capture is kept only if the server lists at least one tool and the list
# is not a copy of one already in real/, dev/ or heldout/ (same tool names
# and descriptions for half the tools or more: forks and re-publications
# would otherwise leak development data into the held-out set).
#
# Environment: CAPTURE_PREFIX, CAPTURE_ENV, CAPTURE_UNSET (see below), CAPTURE_WORK (scratch dir, default /tmp/mcpcap; must be outside
# the repository), CAPTURE_TIMEOUT (seconds per run, default 40),
# CAPTURE_DATE (default today, UTC), CAPTURE_LOOPBACK=1 (the loopback
# interface up, every host name resolving to 127.0.0.1 where loopback.mjs
# answers HTTP with 401 and every other port refuses; see run below),
# CAPTURE_TRY_ALL=1 (try each subcommand guess the package's code names,
# even after a hang), CAPTURE_SOURCE (where a package not from npm came
# from, for its README row; set by capture-git.sh), CAPTURE_LOCK (the lock
# file captures running side by side take turns on). Needs root (or user
# namespaces) for unshare, node >= 18 and npm. The SDK client is installed
# once into $CAPTURE_WORK/client.
#
# Dummy credentials: every upper-case environment variable name the package
# reads (process.env.NAME, process.env["NAME"], a string literal that ends
# like a credential or endpoint setting, or a zod schema key `NAME: z.`) gets a value of the right shape:
# URLs point at 127.0.0.1:9, hosts at 127.0.0.1, keys are a fixed dummy
# string. Names that switch modes (PORT, TRANSPORT, READ_ONLY, TOOLS, ...)
# are left unset so each server starts in its default stdio mode.
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=${CAPTURE_WORK:-/tmp/mcpcap}
tmo=${CAPTURE_TIMEOUT:-40}
day=${CAPTURE_DATE:-$(date -u +%F)}
pkg=${1:?usage: capture-npm.sh PACKAGE [SERVER-ARG...]}
shift
name=${pkg%@*}
[ -z "$name" ] && name=$pkg # "@scope/x" without a version
case $pkg in @*@*) name=${pkg%@*} ;; @*) name=$pkg ;; esac
slug=$(printf %s "$name" | tr 'A-Z' 'a-z' | sed -e 's/^@//' -e 's#/#-#g' -e 's/[^a-z0-9._-]/-/g')
status() { printf '%s\t%s\t%s\t%s\n' "$name" "${version:-?}" "$1" "${2:-}" >>"$work/status.tsv"; echo "$name: $1 ${2:-}" >&2; }

mkdir -p "$work/pkgs" "$work/home" "$work/cache" "$work/logs"
[ "${CAPTURE_LOOPBACK:-}" = 1 ] && echo 'nameserver 127.0.0.1' >"$work/resolv.conf"
if [ ! -d "$work/client/node_modules/@modelcontextprotocol/sdk" ]; then
	mkdir -p "$work/client"
	echo '{"name":"capture","private":true,"type":"module"}' >"$work/client/package.json"
	(cd "$work/client" && timeout 300 npm install --cache "$work/cache" --no-audit --no-fund --loglevel=error @modelcontextprotocol/sdk@1.32.2) || exit 1
fi
cp "$here/capture.mjs" "$work/client/capture.mjs"

# CAPTURE_PREFIX: an npm prefix where the package is already installed
# (capture-npm-batch.sh installs several packages into one prefix at once).
dir=${CAPTURE_PREFIX:-$work/pkgs/$slug}
log=$work/logs/$slug.log
mkdir -p "$dir"
touch "$log"
[ -f "$dir/package.json" ] || echo '{"name":"capture-target","private":true}' >"$dir/package.json"
# --ignore-scripts: install hooks that download browsers or binaries fail
# without network anyway, and nothing from the package runs before the
# sandboxed start below.
# CAPTURE_INSTALL_ONLY=1 only installs (to install the next package while
# the previous one is captured); an installed package is not installed again.
if [ -f "$dir/node_modules/$name/package.json" ]; then
	:
elif ! (cd "$dir" && timeout 300 npm install --cache "$work/cache" --fetch-retries=0 --ignore-scripts --no-audit --no-fund --loglevel=error "$pkg") >"$log" 2>&1; then
	status install-failed "$(tail -1 "$log")"
	exit 2
fi
pj=$dir/node_modules/$name/package.json
[ "${CAPTURE_INSTALL_ONLY:-}" = 1 ] && exit 0
version=$(node -p "require('$pj').version")
bin=$(node -e '
const p = require(process.argv[1]); const b = p.bin; const n = p.name.replace(/^@[^/]+\//, "");
let f = typeof b === "string" ? b : undefined;
if (!f && b) { const k = Object.keys(b); f = b[n] ?? b[k.find((x) => /mcp|server/.test(x)) ?? k[0]]; }
if (!f && p.main) f = p.main;
if (f) console.log(require("path").join(require("path").dirname(process.argv[1]), f));
' "$pj")
# A platform package that ships a prebuilt executable (a Go server's
# `NAME-linux-amd64`) may name it in `bin` or nowhere: then the one ELF file
# of at least 1 MB in the package is the server. It is started directly, not
# through node.
elf() { [ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }
if [ -z "$bin" ] || [ ! -f "$bin" ]; then
	bin=$(find "$dir/node_modules/$name" -type f -size +1M 2>/dev/null | while read -r f; do elf "$f" && echo "$f"; done | head -2)
	[ "$(printf '%s\n' "$bin" | grep -c .)" = 1 ] || bin=""
fi
if [ -z "$bin" ] || [ ! -f "$bin" ]; then
	status no-bin
	exit 3
fi
runner=(node "$bin")
if elf "$bin"; then
	chmod +x "$bin"
	runner=("$bin")
fi

# Dummy credentials for the variable names the package itself reads.
envs=$({ grep -rhoaE --include='*.js' --include='*.mjs' --include='*.cjs' \
	-e 'process\.env\.[A-Z][A-Z0-9_]{2,}' \
	-e 'process\.env\[.[A-Z][A-Z0-9_]{2,}.\]' \
	-e "[\"'\`][A-Z][A-Z0-9]*(_[A-Z0-9]+)*_(API_KEY|APIKEY|KEY|TOKEN|SECRET|PASSWORD|PASS|URL|URI|HOST|ENDPOINT|ID|EMAIL|USER|USERNAME|DOMAIN|ORG|WORKSPACE|REGION|SITE|INSTANCE|TENANT|ACCOUNT)[\"'\`]" \
	-e "\b[A-Z][A-Z0-9]*(_[A-Z0-9]+)*_(API_KEY|APIKEY|KEY|TOKEN|SECRET|PASSWORD|URL|HOST|ID|EMAIL|USERNAME|DOMAIN)\s*:\s*z\." \
	"$dir/node_modules/$name" 2>/dev/null
	# A native executable holds its variable names as bare strings.
	elf "$bin" && grep -aoE '\b[A-Z][A-Z0-9]*(_[A-Z0-9]+)*_(API_KEY|APIKEY|KEY|TOKEN|SECRET|PASSWORD|URL|HOST|ID|EMAIL|USERNAME|DOMAIN|SERVER)\b' "$bin" 2>/dev/null
	} |
	sed -E 's/^process\.env\.//; s/^process\.env\[.//; s/.\]$//; s/^["'\''`]//; s/["'\''`]$//; s/\s*:\s*z\.$//' | sort -u |
	grep -vE '(^|_)(PORT|TRANSPORT|MODE|ENABLE[DS]?|DISABLE[DS]?|READ_?ONLY|DEBUG|LOG|LOGS|LOGGING|LEVEL|TIMEOUT|TOOLS?|TOOLSETS?|FEATURES?|ALLOW|ALLOWED|DENY|HTTP|HTTPS|SSE|STDIO|STREAMABLE|VERBOSE|CI|LANG|TZ|PROXY|COLOR|FORCE|MAX|MIN|LIMIT|CACHE|DIR|FILE|PATH|HOME|TMPDIR|SHELL|TERM|NODE|NPM|ENV|DEV|TEST|TELEMETRY|ANALYTICS|SENTRY|OTEL|DRY|SAFE|STRICT|LEGACY|EXPERIMENTAL|BETA|VERSION|LOCALE|TLS|SSL|CERT|CA|INSECURE|REJECT|WORKERS?|THREADS?|CONCURRENCY|INTERVAL|RETRY|RETRIES|PROFILE)(_|$)' |
	grep -E '(^|_)(KEY|APIKEY|TOKEN|SECRET|PASSWORD|PASS|PWD|AUTH|CREDENTIALS?|URL|URI|ENDPOINT|HOST|HOSTNAME|DOMAIN|SITE|INSTANCE|BASE|ID|EMAIL|USER|USERNAME|LOGIN|ORG|ORGANIZATION|WORKSPACE|TENANT|ACCOUNT|PROJECT|TEAM|REGION|DATABASE|DB|DSN|CONNECTION|STORE|SHOP|SPACE|COMPANY|SERVER)(_|$)' |
	head -300)
envargs=()
for v in $envs; do
	case " ${CAPTURE_UNSET:-} " in *" $v "*) continue ;; esac
	case $v in
	*POSTGRES*_URL | *PG*_URL | *POSTGRES*CONNECTION* | DATABASE_URL | *DATABASE_URI | DSN | *_DSN) val='postgresql://u:p@127.0.0.1:9/db' ;;
	*MYSQL*_URL | *MYSQL*CONNECTION* | *MARIADB*_URL) val='mysql://u:p@127.0.0.1:9/db' ;;
	*MONGO*) val='mongodb://127.0.0.1:9/db' ;;
	*REDIS*_URL | *REDIS*_URI) val='redis://127.0.0.1:9' ;;
	*CONNECTION_STRING* | *CONNECTIONSTRING*) val='Server=127.0.0.1,9;Database=db;User Id=u;Password=p' ;;
	*_URL | *_URI | *URL_* | *ENDPOINT* | *BASE* | *_SERVER) val='http://127.0.0.1:9' ;;
	*HOST | *HOSTNAME | *HOST_*) val='127.0.0.1' ;;
	*EMAIL*) val='user@example.com' ;;
	*REGION*) val='us-east-1' ;;
	*DOMAIN* | *SITE* | *INSTANCE*) val='example.com' ;;
	*_ID | *_IDS) val='1234567890' ;;
	*KEY* | *TOKEN* | *SECRET* | *PASSWORD* | *PASS | *PWD | *AUTH* | *CREDENTIAL*) val='dummy0000000000000000000000000000' ;;
	*) val='dummy' ;;
	esac
	# In loopback mode a dummy http URL names port 80, where loopback.mjs
	# answers 401 (fetch refuses port 9 outright).
	[ "${CAPTURE_LOOPBACK:-}" = 1 ] && val=${val/#http:\/\/127.0.0.1:9/http://127.0.0.1}
	envargs+=("$v=$val")
done
# CAPTURE_ENV="NAME=VALUE ..." adds or overrides dummies a server needs in
# a particular shape; CAPTURE_UNSET="NAME ..." leaves names unset (a dummy
# URL that makes a server fetch its settings from there, say).
# shellcheck disable=SC2206
[ -n "${CAPTURE_ENV:-}" ] && envargs+=(${CAPTURE_ENV})

# run OUT ARGS...: one sandboxed start in new network and PID namespaces
# (unshare -n -p -f), so that when the capture ends every process the server
# started dies with the namespace, even one that left the process group
# with setsid (a bundled Java gateway did); the process group is killed too.
run() {
	local out=$1
	shift
	rm -f "$work/pgid-$slug"
	local net=(unshare -n -p -f)
	if [ "${CAPTURE_LOOPBACK:-}" = 1 ]; then
		# CAPTURE_LOOPBACK=1: in the new network namespace, bring the
		# loopback interface up, point /etc/resolv.conf (in a new mount
		# namespace) at 127.0.0.1, and start loopback.mjs there: every name
		# resolves to 127.0.0.1, where ports 80 and 9 answer 401 and every
		# other port refuses. Still no route out of the namespace.
		rm -f "$work/lb-$slug.ready"
		net=(unshare -n -p -f -m bash -c 'ip link set lo up || exit 97
mount --bind "$0" /etc/resolv.conf || exit 97
node "$1" "$2" &
for _ in $(seq 200); do [ -s "$2" ] && break; sleep 0.05; done
[ -s "$2" ] || exit 97
exec "${@:3}"' "$work/resolv.conf" "$here/loopback.mjs" "$work/lb-$slug.ready")
	fi
	(
		cd "$work/home" || exit 1
		exec setsid bash -c 'echo $$ >"$0"; exec timeout -k 5 "$1" "${@:2}"' "$work/pgid-$slug" "$tmo" \
			"${net[@]}" env -i PATH="$PATH" HOME="$work/home" TMPDIR="$work/home" LANG=C.UTF-8 NO_COLOR=1 \
			MCPCAP_STDERR=1 "${envargs[@]}" \
			node "$work/client/capture.mjs" "${runner[@]}" "$@"
	) >"$out" 2>>"$log" </dev/null
	local rc=$?
	[ -f "$work/pgid-$slug" ] && kill -KILL -- "-$(cat "$work/pgid-$slug")" 2>/dev/null
	rm -f "$work/pgid-$slug"
	return $rc
}

out=$work/out-$slug.json
tried=""
ok=""
envmode=all
hung=""
if [ $# -gt 0 ]; then attempts=("$*"); else attempts=("" "stdio" "--stdio" "mcp" "start"); fi
# CAPTURE_TRY_ALL=1: after a plain start that failed or hung, try each
# subcommand guess whose literal ('stdio', "--stdio", ...) the package's code
# holds, whatever the failed start printed.
inpkg() { grep -rqaE --include='*.js' --include='*.mjs' --include='*.cjs' -e "[\"'\`]$1[\"'\`]" "$dir/node_modules/$name" 2>/dev/null; }
listed() { node -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); process.exit(d.result.tools.length>0?0:1)' "$1" 2>/dev/null; }
# Second round, only if every start failed fast: dummies for keys, tokens and
# secrets only (some servers take a dummy URL or ID as a place to connect to
# at start).
allenv=("${envargs[@]}")
for envmode in all keys; do
	if [ $envmode = keys ]; then
		[ -n "$hung" ] && break
		envargs=()
		for e in "${allenv[@]}"; do
			case ${e%%=*} in *KEY | *KEY_* | *TOKEN | *TOKEN_* | *SECRET | *SECRET_* | *PASSWORD | *PASSWORD_*) envargs+=("$e") ;; esac
		done
		# shellcheck disable=SC2206
		[ -n "${CAPTURE_ENV:-}" ] && envargs+=(${CAPTURE_ENV})
	fi
	for a in "${attempts[@]}"; do
		if [ "${CAPTURE_TRY_ALL:-}" = 1 ] && [ $# -eq 0 ] && [ -n "$a" ]; then
			[ $envmode = keys ] && break
			inpkg "$a" || continue
		fi
		start=$SECONDS
		off=$(stat -c %s "$log")
		# shellcheck disable=SC2086
		run "$out" $a
		rc=$?
		tried="$tried [$envmode:$a]rc=$rc"
		if listed "$out"; then
			ok=$a
			break 2
		fi
		# A server that hung until the timeout is not a CLI waiting for a subcommand.
		if [ $((SECONDS - start)) -ge $((tmo - 2)) ]; then
			hung=1
			[ "${CAPTURE_TRY_ALL:-}" = 1 ] && [ $envmode = all ] && continue
			break
		fi
		[ "${CAPTURE_TRY_ALL:-}" = 1 ] && [ $envmode = all ] && continue
		# Subcommand guesses only for a server whose failed start talked
		# about commands or usage; only the plain start with key dummies.
		[ $# -eq 0 ] && [ -z "$a" ] && ! tail -c +"$((off + 1))" "$log" | grep -qiE 'usage|command|unknown (option|argument)|expected|--help|subcommand' && break
		[ $envmode = keys ] && break
	done
done
if ! listed "$out"; then
	why=$(grep -aoE "Cannot find module '[^']*\.node'|Error: .{0,120}|[A-Z_]+ (is|are) required.{0,60}|[Mm]issing .{0,80}|Usage: .{0,60}" "$log" | head -1)
	status no-tools "$tried ${why:-}"
	exit 4
fi

h=$(printf 'mcpguard-corpus:%s' "$name" | sha256sum | cut -c1-8)
if [ $((16#$h % 100)) -lt 60 ]; then split=dev; else split=heldout; fi
dest=$here/$split/$slug.json
mkdir -p "$here/$split"
# Two packages can share a file name ("drawio-mcp" and "@drawio/mcp"): a
# file listed in the README under another package is never overwritten.
if [ -f "$here/$split/README.md" ] && grep -F "| $slug.json | " "$here/$split/README.md" | grep -qvF "| $slug.json | $name "; then
	status slug-taken "$slug.json"
	exit 6
fi
# Captures running side by side (CAPTURE_WORK differs) take turns from here
# on: the duplicate check, the copy and the README row.
exec 8>"${CAPTURE_LOCK:-/tmp/mcpguard-capture.lock}"
flock 8
# Near-duplicate check against everything captured so far (prints nothing
# about the other files).
if ! node -e '
const fs = require("fs"), path = require("path");
const key = (f) => new Set(JSON.parse(fs.readFileSync(f, "utf8")).result.tools.map((t) => t.name + "\u0000" + (t.description ?? "")));
const mine = key(process.argv[1]);
for (const d of process.argv.slice(3)) for (const f of fs.readdirSync(d)) {
  const p = path.join(d, f);
  if (!f.endsWith(".json") || path.resolve(p) === path.resolve(process.argv[2])) continue;
  const other = key(p); let same = 0; for (const k of mine) if (other.has(k)) same++;
  if (same * 2 >= Math.min(mine.size, other.size)) { console.log(f); process.exit(1); }
}' "$out" "$dest" "$here" "$here/dev" "$here/heldout" >/dev/null; then
	status duplicate
	exit 5
fi
cp "$out" "$dest"
n=$(node -p "JSON.parse(require('fs').readFileSync('$dest','utf8')).result.tools.length")
note=()
# CAPTURE_SOURCE: where a package not from npm came from (capture-git.sh).
[ -n "${CAPTURE_SOURCE:-}" ] && note+=("${CAPTURE_SOURCE}")
[ -n "$ok" ] && note+=("\`$ok\`")
[ $envmode = keys ] && note+=("dummies for keys and tokens only")
[ -n "${CAPTURE_ENV:-}" ] && note+=("env \`${CAPTURE_ENV}\`")
[ -n "${CAPTURE_UNSET:-}" ] && note+=("unset \`${CAPTURE_UNSET}\`")
args=""
[ ${#note[@]} -gt 0 ] && args=" ($(IFS=';'; echo "${note[*]}" | sed 's/;/; /g'))"
row="| $slug.json | $name$args | $version | $n | $day |"
readme=$here/$split/README.md
{ grep -vF "| $slug.json |" "$readme" || true; } >"$readme.tmp" && mv "$readme.tmp" "$readme"
echo "$row" >>"$readme"
status "captured-$split" "$n"
