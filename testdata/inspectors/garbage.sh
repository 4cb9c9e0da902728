#!/bin/sh
# garbage.sh: exits 0 but prints no JSON.
echo "garbage.sh: about to print garbage" >&2
echo "Inspection complete! Everything looks great :)"
