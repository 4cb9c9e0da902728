#!/bin/sh
# make.sh: the Zstandard members of evalzip_test.go's .eval logs, each
# compressed by the reference implementation, not by the Go decoder's
# package. Made once with "Zstandard CLI (64-bit) v1.5.4" (Debian's zstd
# 1.5.4+dfsg2-5) by running this script here; the .json files are the
# uncompressed members.
#   header.json.zst, sample1.json.zst  zstd -3 (the CLI's default level;
#                                      inspect_ai's is 3 too), checksum on
#   sample2.json.zst                   zstd -19 --no-check
#   sample3.json.zst                   two frames: the first 40 bytes,
#                                      then the rest (a streaming writer's
#                                      flushes)
#   bomb.zst                           a sample's JSON and 8 MiB of
#                                      spaces, in 324 bytes
#   window.zst                         sample1.json from a pipe with
#                                      --long=30: its frame asks for a
#                                      1 GiB window
set -eu
zstd -q -f -3 header.json -o header.json.zst
zstd -q -f -3 sample1.json -o sample1.json.zst
zstd -q -f -19 --no-check sample2.json -o sample2.json.zst
head -c 40 sample3.json | zstd -q -c > sample3.json.zst
tail -c +41 sample3.json | zstd -q -c >> sample3.json.zst
{ printf '{"id": 9, "epoch": 1, "scores": {"s": {"value": "C"}}}'; head -c 8388608 /dev/zero | tr '\0' ' '; } | zstd -q -c -19 > bomb.zst
cat sample1.json | zstd -q -c --long=30 > window.zst
