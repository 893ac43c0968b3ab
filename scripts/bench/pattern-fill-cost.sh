#!/usr/bin/env bash
# What the storage and checkpoint writers' data pattern costs on one core of this machine
# (docs/checkpoint.md, "The save without the fill"): builds pattern_fill_cost.cpp against
# bench/storage/pattern.hpp (the functions the writers call) with the project's optimisation
# (-O3) and runs it: a whole fill of a 1 MiB block and the stamp of its sectors' first words
# (a reused buffer), each the median of ROUNDS rounds of 256 MiB, in us per MiB and GB/s. The
# header gives the date, the commit and the load average before and after, so a reader knows
# what else ran.
#   scripts/bench/pattern-fill-cost.sh        env: ROUNDS (21), CXX (c++)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=${ROUNDS:-21}
work=$(mktemp -d /tmp/pattern-fill-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
"${CXX:-c++}" -std=c++20 -O3 -DNDEBUG -I"$root/bench" -o "$work/pattern_fill_cost" "$here/pattern_fill_cost.cpp"
echo "# pattern-fill-cost.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), ROUNDS=$rounds"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$work/pattern_fill_cost" "$rounds"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
