# Sourced by bin/run-local, bin/jobctl and .ci/run: find_java sets and exports JAVA_HOME to a JDK 25 or newer
# (the one JDK the build and the README's commands are checked with; the jars target Java 21):
# JAVA_HOME when it is one, else the java on PATH when it is one, else the first under /usr/lib/jvm.

java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}' | cut -d. -f1
}

find_java() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ "$(java_major "$JAVA_HOME/bin/java")" -ge 25 ] 2>/dev/null; then
    export JAVA_HOME
    return 0
  fi
  local candidate
  if command -v java >/dev/null && [ "$(java_major "$(command -v java)")" -ge 25 ] 2>/dev/null; then
    JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
    export JAVA_HOME
    return 0
  fi
  for candidate in /usr/lib/jvm/*; do
    if [ -x "$candidate/bin/java" ] && [ "$(java_major "$candidate/bin/java")" -ge 25 ] 2>/dev/null; then
      JAVA_HOME="$candidate"
      export JAVA_HOME
      return 0
    fi
  done
  echo "no JDK 25 or newer found (looked at JAVA_HOME, the default java and /usr/lib/jvm/*); set JAVA_HOME to one" >&2
  return 1
}
