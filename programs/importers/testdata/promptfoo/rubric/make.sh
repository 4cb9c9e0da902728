#!/bin/sh
# make.sh: out.json and out.jsonl, the JSON and JSON Lines outputs of one
# real promptfoo eval whose llm-rubric assertions were graded over HTTP by
# grader.py (a stand-in for an OpenAI-compatible grader model on
# 127.0.0.1; promptfoo's openai provider reached through OPENAI_BASE_URL),
# with promptfoo's offline echo provider answering. Made once, on
# 2026-12-01, with promptfoo 0.123.1 from npm under Node v20.20.2 and
# Debian's Python 3.11, by running this script here.
set -eu
PROMPTFOO=${PROMPTFOO:-node_modules/promptfoo/dist/src/main.js}
port_file=$(mktemp)
python3 grader.py > "$port_file" &
grader=$!
trap 'kill $grader' EXIT
sleep 1
export OPENAI_BASE_URL=http://127.0.0.1:$(head -1 "$port_file")/v1 OPENAI_API_KEY=not-a-key
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_CONFIG_DIR=$(mktemp -d)
rm -f out.json out.jsonl
node "$PROMPTFOO" eval -c promptfooconfig.yaml -o out.json -o out.jsonl --no-cache --no-progress-bar || test $? -eq 100
