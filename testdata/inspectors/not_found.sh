#!/bin/sh
# not_found.sh: runs a command that does not exist; sh exits 127.
evalcal-no-such-command-xyz "$@"
