#!/usr/bin/env bash
# The daemon's HTTP conformance job (make conformance): schemathesis, from
# PyPI in a virtualenv of its own, fuzzes every operation of
# api/openapi.yaml against a real daemon (API, queue, runner, SQLite store)
# whose runs execute on the stand-in of internal/httpapi/standin, so that
# hundreds of submitted runs finish in milliseconds without Docker. It
# fails on any server error, any response that does not match the document
# (status, media type, headers, schema), invalid input that is accepted, and
# an undocumented method not answered 405 with Allow (schemathesis' every
# check: --checks all). It needs python3 and PyPI, nothing else.
#
# The verdict is the same on a fast or a slow machine: the cases are a
# budget (CONFORMANCE_MAX_EXAMPLES per operation and phase, from the pinned
# seed), not what a time allows, and the daemon's queue bound is set far
# above what that budget can submit, so its documented 503 (a full queue,
# with Retry-After) cannot be reached by how fast the stand-in drains.
# No --max-time reaches schemathesis: under one it repeats its phases until
# the time is spent, so the cases would depend on the machine's speed.
# CONFORMANCE_MAX_TIME, the old time budget, therefore changes nothing any
# more (a run with 20 and one with 120 test the same cases); the job is
# bounded against a hang by CONFORMANCE_HANG_GUARD seconds (it then fails,
# saying so), far above what the budget takes.
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
MAX_EXAMPLES=${CONFORMANCE_MAX_EXAMPLES:-100}
HANG_GUARD=${CONFORMANCE_HANG_GUARD:-900}
SEED=${CONFORMANCE_SEED:-20261123}
GO=${GO:-go}
VENV=.build/venv
OUT=${CONFORMANCE_OUT:-.build/conformance}
CHECKS=${CONFORMANCE_CHECKS:-all}

say() { printf 'conformance: %s\n' "$*" >&2; }

# schemathesis, pinned, in .build/venv; reinstalled when the pin changes.
if [[ "$("$VENV/bin/st" --version 2>/dev/null)" != *"$SCHEMATHESIS_VERSION"* ]]; then
	say "installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
	rm -rf "$VENV"
	if ! python3 -m venv "$VENV" 2>/dev/null; then
		# Debian keeps venv's pip in a package of its own.
		if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
			say "python3 cannot make a virtualenv; installing python3-venv"
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
		fi
		rm -rf "$VENV"
		python3 -m venv "$VENV"
	fi
	"$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

[[ -n "${CONFORMANCE_SETUP_ONLY:-}" ]] && { say "schemathesis $SCHEMATHESIS_VERSION is in $VENV"; exit 0; }

# The daemon with the stand-in runner exists only in this build.
rm -rf "$OUT"
mkdir -p "$OUT"
if [[ -n "${CONFORMANCE_BINARY:-}" ]]; then
	cp "$CONFORMANCE_BINARY" "$OUT/orchestrator" # built with -tags conformance already
else
	$GO vet -tags conformance ./cmd/orchestrator
	$GO build -tags conformance -o "$OUT/orchestrator" ./cmd/orchestrator
fi

# Far above what the case budget can submit (a few thousand at most): see above.
cat >"$OUT/config.yaml" <<'YAML'
guardrails: {maxQueue: 1000000}
YAML
"$OUT/orchestrator" serve --config "$OUT/config.yaml" --addr 127.0.0.1:0 --db "$OUT/history.db" 2>"$OUT/daemon.log" &
daemon=$!
stop_daemon() {
	kill "$daemon" 2>/dev/null || true
	wait "$daemon" 2>/dev/null || true
}
trap stop_daemon EXIT

url=""
for _ in $(seq 1 300); do
	url=$(sed -n 's/^threadbench daemon listening on \(http:[^ ]*\) .*/\1/p' "$OUT/daemon.log")
	[[ -n "$url" ]] && break
	kill -0 "$daemon" 2>/dev/null || { cat "$OUT/daemon.log" >&2; say "the daemon exited before listening"; exit 1; }
	sleep 0.1
done
[[ -n "$url" ]] || { cat "$OUT/daemon.log" >&2; say "the daemon is not listening after 30 s"; exit 1; }

# Runs in every state for the fuzzer to find: finished, canceled, queued.
python3 - "$url" <<'PY'
import json, sys, time, urllib.request
url = sys.argv[1]
spec = {"name": "conformance", "targets": ["go", "java-virtual"], "profile": "ramp",
        "workload": {"requests": [{"endpoint": "light"}]}}
for _ in range(3):
    req = urllib.request.Request(url + "/runs", data=json.dumps(spec).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req).read()
time.sleep(1)
PY

[[ -n "${CONFORMANCE_MAX_TIME:-}" ]] && say "CONFORMANCE_MAX_TIME=$CONFORMANCE_MAX_TIME is ignored: the cases are a budget, not a time (see the top of this script)"
say "schemathesis $SCHEMATHESIS_VERSION against $url (seed $SEED, checks $CHECKS, $MAX_EXAMPLES cases per operation and phase)"
status=0
timeout --kill-after=10 "$HANG_GUARD" \
	"$VENV/bin/st" --config-file scripts/conformance.toml run "$url/openapi.yaml" \
	--checks "$CHECKS" \
	--max-examples "$MAX_EXAMPLES" \
	--seed "$SEED" \
	--generation-database none \
	--request-timeout 10 \
	--workers 1 \
	--no-color \
	--report junit,ndjson --report-dir "$OUT/report" \
	>"$OUT/schemathesis.txt" 2>&1 || status=$?
stop_daemon
trap - EXIT

# What the daemon answered, from its access log: server errors must be none.
server_errors=$(grep -c '"msg":"http request".*"status":5[0-9][0-9]' "$OUT/daemon.log" || true)
requests=$(grep -c '"msg":"http request"' "$OUT/daemon.log" || true)

# A short summary: schemathesis's figures, its failures if any, and ours.
summary() { sed -n "/^$1:/,/^\$/p" "$OUT/schemathesis.txt" | sed '/^$/d'; }
summary "API Operations"
summary "Test Phases"
summary "Failures"
summary "Test cases"
say "$requests requests answered, $server_errors server errors (daemon log $OUT/daemon.log)"
if ((status == 124 || status == 137)); then
	say "FAILED: not done after CONFORMANCE_HANG_GUARD=${HANG_GUARD}s (a hang?); output so far in $OUT/schemathesis.txt"
	exit 1
fi
if ((status != 0)); then
	sed -n '/^=* FAILURES =*$/,/^=* WARNINGS =*$/p' "$OUT/schemathesis.txt" | head -150 >&2
	say "FAILED: schemathesis exited with $status; full output in $OUT/schemathesis.txt"
	exit 1
fi
if ((server_errors != 0)); then
	say "FAILED: the daemon answered $server_errors server errors"
	exit 1
fi
say "ok: 0 server errors, 0 schema violations"
