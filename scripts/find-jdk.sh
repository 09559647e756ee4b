#!/usr/bin/env bash
# find-jdk.sh: print the home of a JDK 21 or newer (virtual threads, FFM), or
# fail with a clear message. Looks at $JAVA_HOME, then /usr/lib/jvm/*, newest first.
set -euo pipefail
major() { # major version of the JDK at $1, from its release file
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null
}
for home in ${JAVA_HOME:-} $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sed 's:/$::' | sort -rV); do
  [ -x "$home/bin/javac" ] && [ -x "$home/bin/jlink" ] || continue
  v=$(major "$home"); [ -n "$v" ] && [ "$v" -ge 21 ] && { echo "$home"; exit 0; }
done
echo "find-jdk: no JDK 21 or newer found (looked at \$JAVA_HOME and /usr/lib/jvm); install one (e.g. Temurin 25) or set JAVA_HOME" >&2
exit 1
