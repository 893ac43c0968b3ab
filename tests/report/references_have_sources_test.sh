#!/usr/bin/env bash
# Every figure of every reference envelope (configs/references/*.yaml) says where its numbers
# come from: a non-empty `source` that carries a year, beside `metric`, `unit`, `typical` and
# `floor`. The same check must refuse planted copies: a figure without a source, with an empty
# one, with one whose only four-digit numbers are figures (1979 TFLOP/s is not a year), and
# without each of the other keys; a directory without figures; and a copy of the shipped files
# with one source removed.
# references_have_sources_test.sh WORKDIR [REFERENCE_DIR]
set -uo pipefail
work=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
refs=${2:-$root/configs/references}
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"

# check_sources DIR: prints one line per problem; exit 0 when every figure of every *.yaml in
# DIR is complete, 1 when one is not or there is no figure at all, 2 when a file cannot be read.
check_sources() {
  /usr/bin/python3 - "$1" <<'EOF'
import glob, os, re, sys
try:
    import yaml
except ImportError:
    sys.exit("references: /usr/bin/python3 has no yaml module: install python3-yaml (scripts/setup.sh)")

# A year from 1990 to 2039 standing alone: not part of a longer number, not a figure followed
# by its unit (NVIDIA quotes 1979 TFLOP/s and 2,039 GB/s, neither a date).
YEAR = re.compile(r"(?<![\d.,])(199\d|20[0-3]\d)(?![\d.,])(?!\s*(?:[TGMk]?FLOP|[TGMk]i?B\b|GT/s|W\b|MHz|GHz|%))")
REQUIRED = ("metric", "unit", "typical", "floor", "source")

def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)

def problems(path):
    try:
        with open(path) as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        print(f"{path}: cannot read: {e}")
        sys.exit(2)
    figures = doc.get("figures") if isinstance(doc, dict) else None
    if not isinstance(figures, list) or not figures:
        yield "no figures (a list under `figures`)"
        return
    for i, fig in enumerate(figures):
        where = f"figure {i + 1}"
        if not isinstance(fig, dict):
            yield f"{where}: not a mapping"
            continue
        where += f" ({fig.get('name', 'no name')})"
        for key in REQUIRED:
            if key not in fig:
                yield f"{where}: no `{key}`"
        if "typical" in fig and not number(fig["typical"]):
            yield f"{where}: `typical` is not a number: {fig['typical']!r}"
        if "floor" in fig and not number(fig["floor"]):
            yield f"{where}: `floor` is not a number: {fig['floor']!r}"
        if "metric" in fig and not (isinstance(fig["metric"], str) and fig["metric"].strip()):
            yield f"{where}: `metric` is empty"
        if "unit" in fig and not isinstance(fig["unit"], str):
            yield f"{where}: `unit` is not a string (\"\" for a fraction)"
        source = fig.get("source")
        if "source" in fig and not (isinstance(source, str) and source.strip()):
            yield f"{where}: `source` is empty"
        elif isinstance(source, str) and not YEAR.search(source):
            yield f"{where}: `source` names no year (19xx or 20xx) for its measurement or spec"

files = sorted(glob.glob(os.path.join(sys.argv[1], "*.yaml")))
bad = 0
figures = 0
for path in files:
    for p in problems(path):
        print(f"{path}: {p}")
        bad += 1
    with open(path) as f:
        doc = yaml.safe_load(f)
    figures += len(doc.get("figures") or []) if isinstance(doc, dict) else 0
if not files or figures == 0:
    print(f"{sys.argv[1]}: no reference file with figures: nothing was checked")
    sys.exit(1)
print(f"{len(files)} reference file(s), {figures} figure(s), {bad} problem(s)")
sys.exit(1 if bad else 0)
EOF
}

# The shipped envelopes pass.
check_sources "$refs" >"$work/shipped.out" 2>&1
[[ $? -eq 0 ]] && pass "every shipped figure has metric, unit, typical, floor and a dated source: $(tail -1 "$work/shipped.out")" ||
  { fail "the shipped reference files are incomplete"; cat "$work/shipped.out"; }

# plant NAME 'YAML of one figure' PATTERN: a directory holding one file with that figure must
# fail, with a message matching PATTERN.
plant() {
  local dir=$work/$1
  mkdir -p "$dir"
  printf 'reference: planted\nmatch: {gpu_model: X}\nfigures:\n%s\n' "$2" >"$dir/planted.yaml"
  check_sources "$dir" >"$dir.out" 2>&1
  local rc=$?
  [[ $rc -eq 1 ]] && grep -q -- "$3" "$dir.out" && pass "refused: $1" ||
    { fail "not refused as expected (exit $rc): $1"; cat "$dir.out"; }
}
whole='  - {name: gemm, metric: tflops, unit: TFLOP/s, typical: 790, floor: 600,
     source: "measured by someone, 2024-09-24"}'
no_source='  - {name: gemm, metric: tflops, unit: TFLOP/s, typical: 790, floor: 600}'
plant "a figure without a source" "$no_source" 'no `source`'
plant "an empty source" "${whole/measured by someone, 2024-09-24/  }" '`source` is empty'
plant "a source without a year" "${whole/measured by someone, 2024-09-24/NVIDIA datasheet: 1979 TFLOP\/s, 2039 GB\/s}" \
  'names no year'
plant "no typical" "${whole/typical: 790, /}" 'no `typical`'
plant "no floor" "${whole/floor: 600,/}" 'no `floor`'
plant "no metric" "${whole/metric: tflops, /}" 'no `metric`'
plant "no unit" "${whole/unit: TFLOP\/s, /}" 'no `unit`'
plant "a floor that is not a number" "${whole/floor: 600/floor: high}" '`floor` is not a number'
plant "a file without figures" '  []' 'no figures'
# ... while the same figure, whole, passes (the plants fail for what was planted, not for
# something else in the template).
mkdir -p "$work/whole" && printf 'reference: whole\nfigures:\n%s\n' "$whole" >"$work/whole/whole.yaml"
check_sources "$work/whole" >"$work/whole.out" 2>&1 && pass "the planted template itself passes" ||
  { fail "the template figure is refused"; cat "$work/whole.out"; }

# An empty directory checks nothing, which is a failure, not a pass.
mkdir -p "$work/empty"
check_sources "$work/empty" >"$work/empty.out" 2>&1
[[ $? -eq 1 ]] && grep -q 'nothing was checked' "$work/empty.out" && pass "no reference files: fails" ||
  { fail "an empty directory passed"; cat "$work/empty.out"; }

# A copy of the shipped files with the first figure's source taken out of one of them fails,
# naming that file and figure.
cp -r "$refs" "$work/copy"
victim=$(ls "$work"/copy/*.yaml | head -1)
/usr/bin/python3 - "$victim" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
# Drop the first `source:` block (its key line and the indented lines folded under it).
out, dropping, done = [], False, False
for line in text.splitlines(keepends=True):
    if not done and re.match(r"\s+source:", line):
        dropping, done, indent = True, True, len(line) - len(line.lstrip())
        continue
    if dropping and (line.strip() == "" or len(line) - len(line.lstrip()) > indent):
        continue
    dropping = False
    out.append(line)
open(sys.argv[1], "w").write("".join(out))
EOF
check_sources "$work/copy" >"$work/copy.out" 2>&1
[[ $? -eq 1 ]] && grep -q "$(basename "$victim"): figure 1 (.*): no \`source\`" "$work/copy.out" &&
  pass "a copy of the shipped files with one source removed fails, naming $(basename "$victim") figure 1" ||
  { fail "removing a shipped source was not caught"; cat "$work/copy.out"; }
finish
