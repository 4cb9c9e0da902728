#!/bin/sh
# out_of_range.sh: a runtime_fidelity of 140.
printf '{"system":"s","runtime_fidelity":140,"task_effectiveness":50,"verdict":"pass"}\n'
