#!/usr/bin/env bash
# The shape of the code, checked: no import circle of more than two files in any crate
# (scripts/import-cycles.py), and no source file outside tests longer than 700 lines.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for dir in src models/src media/src store/src service/src server/src cli/src python/src; do
    printf '%-12s ' "$dir"
    python3 scripts/import-cycles.py "$dir" | tail -1 || status=1
done
long="$(git ls-files --cached --others --exclude-standard '*.rs' | grep -v -e '/tests/' -e '^tests/' -e '/tests\.rs$' -e '^fuzz/' -e '^benches/' -e '/examples/' -e '^examples/' |
    xargs wc -l | awk '$2 != "total" && $1 > 700 {print}')"
if [ -n "$long" ]; then
    echo "source files longer than 700 lines (split them by concept):"
    echo "$long"
    status=1
else
    echo "every source file outside tests is at most 700 lines"
fi
exit "$status"
