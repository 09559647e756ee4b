#!/usr/bin/env bash
# docker-up.sh: make sure a Docker engine answers on /var/run/docker.sock.
#
# Used by the README setup, the Makefile and .ci/run. If no engine answers it
# installs docker.io from Debian packages when missing, starts dockerd in the
# background and waits for the socket. It fails with a clear message where that
# is impossible (not root, no apt-get, dockerd does not come up).
#
# Source it (". scripts/docker-up.sh") or run it; either way it prints the
# environment testcontainers-go needs here.
set -euo pipefail

SOCK=${DOCKER_SOCK:-/var/run/docker.sock}
LOG=${DOCKERD_LOG:-/tmp/threadbench-dockerd.log}
WAIT_SECONDS=${DOCKERD_WAIT_SECONDS:-60}

die() { echo "docker-up: $*" >&2; exit 1; }
engine_answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

if ! command -v docker >/dev/null 2>&1 || ! command -v dockerd >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || die "no Docker engine installed and not root: install docker.io (or Docker Engine) yourself, then re-run"
  command -v apt-get >/dev/null 2>&1 || die "no Docker engine installed and no apt-get: install a Docker engine yourself, then re-run"
  echo "docker-up: installing docker.io from Debian packages..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || die "apt-get update failed"
  apt-get install -y -qq docker.io >/dev/null || die "apt-get install docker.io failed"
fi

if ! engine_answers; then
  [ "$(id -u)" = 0 ] || die "no Docker engine answers on $SOCK and not root, so dockerd cannot be started here: start it (sudo systemctl start docker) and re-run"
  # A dockerd that does not answer may be one still shutting down (its
  # containers being killed): wait for it to answer or to be gone, and
  # start one once none runs.
  for _ in $(seq 1 "$WAIT_SECONDS"); do
    [ -S "$SOCK" ] && engine_answers && break
    if ! pgrep -x dockerd >/dev/null 2>&1; then
      echo "docker-up: starting dockerd (log: $LOG)..." >&2
      nohup dockerd >"$LOG" 2>&1 </dev/null &
    fi
    sleep 1
  done
  engine_answers || die "dockerd did not answer within ${WAIT_SECONDS}s; last lines of $LOG:
$(tail -n 20 "$LOG" 2>/dev/null)"
fi

echo "docker-up: engine $(docker version --format '{{.Server.Version}}') is up" >&2
