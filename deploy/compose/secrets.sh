#!/bin/sh
# The secrets of docker-compose.yml, written once into two named volumes by the one-shot "secrets" service (on
# postgres:17.6, an image compose pulls anyway) before anything else starts. No secret has a default anywhere:
# a value given in .env or the environment wins (and is written again on every start); else the one already in
# the volume is kept; else a random one is made (32 bytes of /dev/urandom, as 64 hex digits).
#
#   $FLEETJOBS_CONTROL_SECRETS (/secrets/control-plane): the control plane's (postgres, db-migrations, the four
#     services), readable by their unprivileged users; each file named as the property the services read
#     (spring.config.import=configtree:, whose file names are property names, exactly: no relaxed binding).
#   $FLEETJOBS_AGENT_SECRETS (/secrets/agent): the agents', the join token only (jobs.worker.join-token), readable
#     by root alone (the agent runs as root; the jobs it starts run as other users and cannot read it).
#
# deploy/tests (SecretsScriptTest) runs this script; ComposeFileTest holds docker-compose.yml to it.
set -eu

control=${FLEETJOBS_CONTROL_SECRETS:-/secrets/control-plane}
agent=${FLEETJOBS_AGENT_SECRETS:-/secrets/agent}
mkdir -p "$control" "$agent"
chmod 0755 "$control"
chmod 0700 "$agent"
umask 077

random() {
    od -An -N32 -tx1 /dev/urandom | tr -d ' \n'
}

# secret DIR NAME GIVEN MODE: DIR/NAME is GIVEN when given, else what it holds, else a random value
secret() {
    file="$1/$2"
    if [ -n "$3" ]; then
        printf '%s' "$3" > "$file.new"
        mv -f "$file.new" "$file"
        how="given"
    elif [ -s "$file" ]; then
        how="kept"
    else
        random > "$file.new"
        mv -f "$file.new" "$file"
        how="generated"
    fi
    chmod "$4" "$file"
    echo "$2: $how"
}

secret "$control" JOBS_DB_PASSWORD "${JOBS_DB_PASSWORD:-}" 0444
secret "$control" JOBS_INTERNAL_SECRET "${JOBS_INTERNAL_SECRET:-}" 0444
secret "$control" JOBS_BOOTSTRAP_ADMIN_TOKEN "${JOBS_BOOTSTRAP_ADMIN_TOKEN:-}" 0444
secret "$control" JOBS_AGENT_JOIN_TOKEN "${JOBS_AGENT_JOIN_TOKEN:-}" 0444
# the agents' copy of the join token, under the name of the agent's own property
secret "$agent" jobs.worker.join-token "$(cat "$control/JOBS_AGENT_JOIN_TOKEN")" 0400
