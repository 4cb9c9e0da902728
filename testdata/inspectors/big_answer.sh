#!/bin/sh
# big_answer.sh: a valid inspection whose summary is 20,000,000 bytes long,
# over the exec inspector's 16 MiB stdout limit.
printf '{"system":"s","runtime_fidelity":70,"task_effectiveness":70,"verdict":"pass","summary":"'
head -c 20000000 /dev/zero | tr '\0' a
printf '"}\n'
