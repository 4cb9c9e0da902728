#!/bin/sh
# crash.sh: floods stderr (to test the tail bound), then exits 3.
i=0
while [ $i -lt 100 ]; do
	echo "crash.sh: noise line $i ............................................" >&2
	i=$((i + 1))
done
echo "crash.sh: boom, inspector crashed" >&2
exit 3
