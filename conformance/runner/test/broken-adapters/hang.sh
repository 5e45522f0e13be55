#!/usr/bin/env bash
# Broken on purpose: answers info, then hangs. The hang is in a child process, as a script's
# helper would be, so the runner must kill the adapter's whole process group, not just bash.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ "$1" = info ]; then exec node "$here/../../../../packages/cli/dist/adapter-main.js" info; fi
sleep 300
