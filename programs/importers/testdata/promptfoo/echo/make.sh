#!/bin/sh
# make.sh: out.json and out.jsonl, the JSON and JSON Lines outputs of one
# real promptfoo eval (promptfooconfig.yaml here: promptfoo's offline
# `echo` provider, which answers with the prompt, so every assertion's
# outcome can be worked by hand). Made once, on 2026-12-01, with
# promptfoo 0.123.1 from npm (`npm install promptfoo@0.123.1`) under
# Node v20.20.2, by running this script here; promptfoo did not need the
# network for the eval itself.
set -eu
PROMPTFOO=${PROMPTFOO:-node_modules/promptfoo/dist/src/main.js}
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_CONFIG_DIR=$(mktemp -d)
rm -f out.json out.jsonl
node "$PROMPTFOO" eval -c promptfooconfig.yaml -o out.json -o out.jsonl --no-cache --no-progress-bar || test $? -eq 100
