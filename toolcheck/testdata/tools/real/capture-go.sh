#!/usr/bin/env bash
# capture-go.sh MODULE[@VERSION] [SERVER-ARG...]
#
# The Go counterpart of capture-npm.sh: builds one MCP server published as a
# Go module with `go install MODULE@VERSION` (default @latest, through the Go
# module proxy) into a scratch directory, runs the binary with no network
# (unshare -n, in a PID namespace too), dummy credentials and an empty HOME,
# records its tools/list result with the official SDK client (capture.mjs
# beside this script), kills the whole process group, and files the result
# under dev/ or heldout/.
#
# The split is fixed by the Go module path alone (the module that holds the
# installed package, as `go version -m` names it): the first 8 hex digits of
# sha256("mcpguard-corpus:" + module path), read as a number, modulo 100;
# below 60 goes to dev/, the rest to heldout/. It never depends on the tools.
# The file name is "go-" + the installed package path, lower case, with "/"
# as "-" and without a leading "github.com/".
#
# A capture is kept only if the server lists at least one tool and the list
# is not a copy of one already in real/, dev/ or heldout/ (same tool names
# and descriptions for half the tools or more), as in capture-npm.sh.
#
# Environment: CAPTURE_ENV, CAPTURE_UNSET, CAPTURE_WORK (scratch dir, default
# /tmp/mcpcap; outside the repository), CAPTURE_TIMEOUT (seconds per run,
# default 40), CAPTURE_DATE (default today, UTC); GOTOOLCHAIN=auto lets go
# fetch the newer toolchain (a Go module too) a server's go.mod requires. Needs go, node >= 18, npm
# (the SDK client is installed once into $CAPTURE_WORK/client) and root (or
# user namespaces) for unshare.
#
# Dummy credentials: every upper-case environment variable name the module's
# own source reads (os.Getenv("NAME"), os.LookupEnv("NAME"), or a string
# literal that ends like a credential or endpoint setting), found in the
# module's directory in the Go module cache, gets a value of the right shape
# as in capture-npm.sh; names that switch modes (PORT, TRANSPORT, READ_ONLY,
# TOOLS, ...) are left unset so each server starts in its default mode.
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=${CAPTURE_WORK:-/tmp/mcpcap}
tmo=${CAPTURE_TIMEOUT:-40}
day=${CAPTURE_DATE:-$(date -u +%F)}
arg=${1:?usage: capture-go.sh MODULE[@VERSION] [SERVER-ARG...]}
shift
pkgpath=${arg%@*}
query=latest
case $arg in *@*) query=${arg##*@} ;; esac
slug=go-$(printf %s "$pkgpath" | tr 'A-Z' 'a-z' | sed -e 's#^github\.com/##' -e 's#/#-#g' -e 's/[^a-z0-9._-]/-/g')
name=$pkgpath
version=""
status() { printf '%s\t%s\t%s\t%s\n' "$name" "${version:-?}" "$1" "${2:-}" >>"$work/status.tsv"; echo "$name: $1 ${2:-}" >&2; }

mkdir -p "$work/gobin" "$work/home" "$work/cache" "$work/logs"
if [ ! -d "$work/client/node_modules/@modelcontextprotocol/sdk" ]; then
	mkdir -p "$work/client"
	echo '{"name":"capture","private":true,"type":"module"}' >"$work/client/package.json"
	(cd "$work/client" && timeout 300 npm install --cache "$work/cache" --no-audit --no-fund --loglevel=error @modelcontextprotocol/sdk@1.32.2) || exit 1
fi
cp "$here/capture.mjs" "$work/client/capture.mjs"

gobin=$work/gobin/$slug
log=$work/logs/$slug.log
# Outside any module (cd to the scratch dir), so that no go.mod of the
# repository takes part; the build runs no code of the module.
if ! (cd "$work" && GOBIN=$gobin GOFLAGS=-buildvcs=false timeout 600 go install "$pkgpath@$query") >"$log" 2>&1; then
	status install-failed "$(grep -m1 -oE '(403|404|410) [A-Za-z ]+|no required module.*|cannot find.*|is not a main package|build constraints.*' "$log" || tail -1 "$log")"
	exit 2
fi
bin=$(find "$gobin" -maxdepth 1 -type f -perm -u+x | head -1)
if [ -z "$bin" ]; then
	status no-bin
	exit 3
fi
mod=$(go version -m "$bin" | awk '$1 == "mod" { print $2; exit }')
version=$(go version -m "$bin" | awk '$1 == "mod" { print $3; exit }')
[ -z "$mod" ] && mod=$pkgpath
# The README row names the installed package first (one module can hold
# several servers, each its own file) and its module after it.
[ "$mod" != "$pkgpath" ] && name="$pkgpath (module $mod)"
src=$(cd "$work" && go mod download -json "$mod@$version" 2>/dev/null | sed -nE 's/^\s*"Dir": "(.*)",?$/\1/p')

envs=""
if [ -n "$src" ] && [ -d "$src" ]; then
	envs=$(grep -rhoaE --include='*.go' \
		-e 'os\.(Getenv|LookupEnv)\("[A-Z][A-Z0-9_]{2,}"\)' \
		-e '"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*_(API_KEY|APIKEY|KEY|TOKEN|SECRET|PASSWORD|PASS|URL|URI|HOST|ENDPOINT|ID|EMAIL|USER|USERNAME|DOMAIN|ORG|WORKSPACE|REGION|SITE|INSTANCE|TENANT|ACCOUNT)"' \
		"$src" 2>/dev/null |
		sed -E 's/^os\.(Getenv|LookupEnv)\(//; s/\)$//; s/^"//; s/"$//' | sort -u |
		grep -vE '(^|_)(PORT|TRANSPORT|MODE|ENABLE[DS]?|DISABLE[DS]?|READ_?ONLY|DEBUG|LOG|LOGS|LOGGING|LEVEL|TIMEOUT|TOOLS?|TOOLSETS?|FEATURES?|ALLOW|ALLOWED|DENY|HTTP|HTTPS|SSE|STDIO|STREAMABLE|VERBOSE|CI|LANG|TZ|PROXY|COLOR|FORCE|MAX|MIN|LIMIT|CACHE|DIR|FILE|PATH|HOME|TMPDIR|SHELL|TERM|NODE|NPM|ENV|DEV|TEST|TELEMETRY|ANALYTICS|SENTRY|OTEL|DRY|SAFE|STRICT|LEGACY|EXPERIMENTAL|BETA|VERSION|LOCALE|TLS|SSL|CERT|CA|INSECURE|REJECT|WORKERS?|THREADS?|CONCURRENCY|INTERVAL|RETRY|RETRIES|PROFILE|GO|GOPATH|GOROOT|KUBECONFIG)(_|$)' |
		grep -E '(^|_)(KEY|APIKEY|TOKEN|SECRET|PASSWORD|PASS|PWD|AUTH|CREDENTIALS?|URL|URI|ENDPOINT|HOST|HOSTNAME|DOMAIN|SITE|INSTANCE|BASE|ID|EMAIL|USER|USERNAME|LOGIN|ORG|ORGANIZATION|WORKSPACE|TENANT|ACCOUNT|PROJECT|TEAM|REGION|DATABASE|DB|DSN|CONNECTION|STORE|SHOP|SPACE|COMPANY|SERVER)(_|$)' |
		head -300)
fi
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
	envargs+=("$v=$val")
done
# shellcheck disable=SC2206
[ -n "${CAPTURE_ENV:-}" ] && envargs+=(${CAPTURE_ENV})

# run OUT ARGS...: one sandboxed start in new network and PID namespaces, as
# in capture-npm.sh; the process group is killed after.
run() {
	local out=$1
	shift
	rm -f "$work/pgid-$slug"
	(
		cd "$work/home" || exit 1
		exec setsid bash -c 'echo $$ >"$0"; exec timeout -k 5 "$1" "${@:2}"' "$work/pgid-$slug" "$tmo" \
			unshare -n -p -f env -i PATH="$PATH" HOME="$work/home" TMPDIR="$work/home" LANG=C.UTF-8 NO_COLOR=1 \
			MCPCAP_STDERR=1 "${envargs[@]}" \
			node "$work/client/capture.mjs" "$bin" "$@"
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
# Go servers are often one binary with subcommands (`stdio`, `serve`).
if [ $# -gt 0 ]; then attempts=("$*"); else attempts=("" "stdio" "--stdio" "serve" "mcp" "start" "--transport stdio"); fi
listed() { node -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); process.exit(d.result.tools.length>0?0:1)' "$1" 2>/dev/null; }
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
		if [ $((SECONDS - start)) -ge $((tmo - 2)) ]; then
			hung=1
			break
		fi
		[ $# -eq 0 ] && [ -z "$a" ] && ! tail -c +"$((off + 1))" "$log" | grep -qiE 'usage|command|unknown (option|argument|flag)|expected|--help|subcommand|flag provided' && break
		[ $envmode = keys ] && break
	done
done
if ! listed "$out"; then
	why=$(grep -aoE "Error: .{0,120}|[A-Z_]+ (is|are|must be) (required|set).{0,60}|[Mm]issing .{0,80}|Usage: .{0,60}|panic: .{0,80}" "$log" | head -1)
	status no-tools "$tried ${why:-}"
	exit 4
fi

h=$(printf 'mcpguard-corpus:%s' "$mod" | sha256sum | cut -c1-8)
if [ $((16#$h % 100)) -lt 60 ]; then split=dev; else split=heldout; fi
dest=$here/$split/$slug.json
mkdir -p "$here/$split"
if [ -f "$here/$split/README.md" ] && grep -F "| $slug.json | " "$here/$split/README.md" | grep -qvF "$pkgpath"; then
	status slug-taken "$slug.json"
	exit 6
fi
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
