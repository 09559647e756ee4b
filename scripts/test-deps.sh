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
#   /usr/lib/postgresql/15/bin/postgres  postgresql-15   the PostgreSQL image
#   /usr/sbin/mariadbd                   mariadb-server  the MariaDB image
#                      (internal/database assembles a server's image from
#                      its host package; neither server runs on the host)
#   /usr/lib/python3/dist-packages/junitparser  python3-junitparser  a JUnit
#                      reader that check's JUnit XML is read back with
set -euo pipefail

# program -> Debian package
declare -A NEED=([/usr/bin/chromium]=chromium [ip]=iproute2 [nsenter]=util-linux [taskset]=util-linux
	[/usr/lib/postgresql/15/bin/postgres]=postgresql-15 [/usr/sbin/mariadbd]=mariadb-server
	[/usr/lib/python3/dist-packages/junitparser]=python3-junitparser)

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

# No package installed here may start its service on the host: the
# database servers run in the tests' containers only. A policy-rc.d that
# exits 101 tells invoke-rc.d so (Debian's Docker images ship one; one
# made here is removed after).
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\n# test-deps.sh: no service starts while it installs packages\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi

# stop_started stops the database servers this install put on the host,
# should it have started one anyway (a host whose init ignores
# policy-rc.d). The tests' own servers run the same programs in containers,
# so the host's are found by their cluster and pid file, not by name.
stop_started() {
	local installed=" ${packages[*]} "
	if [[ $installed == *" postgresql-15 "* ]] && command -v pg_ctlcluster >/dev/null 2>&1 &&
		pg_ctlcluster 15 main status >/dev/null 2>&1; then
		echo "test-deps: stopping the PostgreSQL cluster 15/main the install started" >&2
		pg_ctlcluster 15 main stop || die "could not stop PostgreSQL's cluster 15/main"
	fi
	if [[ $installed == *" mariadb-server "* ]] && [ -s /run/mysqld/mysqld.pid ] &&
		kill -0 "$(cat /run/mysqld/mysqld.pid)" 2>/dev/null; then
		echo "test-deps: stopping the MariaDB server the install started" >&2
		kill "$(cat /run/mysqld/mysqld.pid)" || die "could not stop MariaDB"
	fi
}

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || die "apt-get update failed"
apt-get install -y -qq "${packages[@]}" >/dev/null || die "apt-get install ${packages[*]} failed"
stop_started
for prog in "${missing[@]}"; do
	have "$prog" || die "$prog is still missing after installing ${NEED[$prog]}"
done
echo "test-deps: installed ${packages[*]}" >&2
