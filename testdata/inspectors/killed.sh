#!/bin/sh
# killed.sh: dies of SIGKILL it sends itself, after a line on stderr.
echo "killed.sh: about to die" >&2
kill -KILL $$
