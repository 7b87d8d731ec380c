#!/bin/sh
# The image's commands (Containerfile ENTRYPOINT). Secrets come from the
# environment only; nothing here writes one to disk.
#   web [next start options]  apply pending migrations (under PostgreSQL's advisory lock, so
#                             several web containers may start at once), then serve on $PORT
#   worker [options]          wait for the migrations, then take runs from the queue (npm run worker)
#   migrate | status          apply pending migrations / list them
#   user:create OPTIONS       create a user (the first admin): --email --name --roles,
#                             password from FLOWFIX_NEW_USER_PASSWORD
#   flowfix ARGS              the CLI (report, repair, fix)
#   anything else             run as given (a shell: sh)
set -eu
cd /app
cmd="${1:-web}"
[ $# -gt 0 ] && shift
case "$cmd" in
  web)
    # compose starts the database first but need not wait for it: the
    # migrations are tried again for up to FLOWFIX_DB_WAIT_SECONDS
    waited=0
    until node --import tsx scripts/db.ts migrate; do
      if [ "$waited" -ge "${FLOWFIX_DB_WAIT_SECONDS:-120}" ]; then
        echo "flowfix web: the migrations did not apply within ${waited}s (see above)" >&2
        exit 1
      fi
      sleep 3
      waited=$((waited + 3))
    done
    exec node node_modules/next/dist/bin/next start --hostname 0.0.0.0 --port "${PORT:-3000}" "$@"
    ;;
  worker)
    # the web container migrates; a worker started beside it waits for that
    # rather than failing on a table that is not there yet
    waited=0
    until node --import tsx scripts/db.ts status >/dev/null 2>&1; do
      if [ "$waited" -ge "${FLOWFIX_MIGRATION_WAIT_SECONDS:-300}" ]; then
        echo "flowfix worker: the database's migrations are still pending after ${waited}s (is the web container running?)" >&2
        node --import tsx scripts/db.ts status >&2 || true
        exit 1
      fi
      sleep 2
      waited=$((waited + 2))
    done
    exec node --import tsx agent/worker/main.ts "$@"
    ;;
  migrate) exec node --import tsx scripts/db.ts migrate "$@" ;;
  status) exec node --import tsx scripts/db.ts status "$@" ;;
  user:create) exec node --import tsx scripts/user.ts "$@" ;;
  flowfix) exec node bin/flowfix.mjs "$@" ;;
  *) exec "$cmd" "$@" ;;
esac
