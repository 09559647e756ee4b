#!/usr/bin/env bash
# test-deps.sh: make sure the programs the integration tests drive are on
# this machine, the way docker-up.sh makes sure of the engine.
#
# The tests never skip for want of them (make test fails a skipped test),
# so this installs what is missing from Debian's packages where it can
# (root with apt-get), and otherwise fails naming every missing program
# and the package that has it:
#   /usr/bin/chromium  chromium  the report and web page in a real browser
#   ip                 iproute2  the second Docker engine's network namespace
#   nsenter            util-linux  dockerd started inside that namespace
#   taskset            util-linux  make test's side-by-side tests on one CPU
set -euo pipefail

# program -> Debian package
declare -A NEED=([/usr/bin/chromium]=chromium [ip]=iproute2 [nsenter]=util-linux [taskset]=util-linux)

die() { echo "test-deps: $*" >&2; exit 1; }
have() { [[ $1 == /* ]] && [ -x "$1" ] || { [[ $1 != /* ]] && command -v "$1" >/dev/null 2>&1; }; }

missing=()
for prog in "${!NEED[@]}"; do
	have "$prog" || missing+=("$prog")
done
[ ${#missing[@]} -eq 0 ] && exit 0

packages=()
for prog in "${missing[@]}"; do packages+=("${NEED[$prog]}"); done
list="$(for prog in "${missing[@]}"; do printf '%s (package %s) ' "$prog" "${NEED[$prog]}"; done)"
[ "$(id -u)" = 0 ] || die "missing ${list}and not root: install them (apt-get install ${packages[*]}), then re-run"
command -v apt-get >/dev/null 2>&1 || die "missing ${list}and no apt-get: install them yourself, then re-run"
echo "test-deps: installing ${packages[*]} from Debian packages..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || die "apt-get update failed"
apt-get install -y -qq "${packages[@]}" >/dev/null || die "apt-get install ${packages[*]} failed"
for prog in "${missing[@]}"; do
	have "$prog" || die "$prog is still missing after installing ${NEED[$prog]}"
done
echo "test-deps: installed ${packages[*]}" >&2
