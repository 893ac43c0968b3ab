#!/usr/bin/env bash
# Every output of preflight-report on the results files kept under tests/fixtures (version 1,
# version 2 from preflight 3cf8737, the H200 files) is byte-identical to what the report wrote
# for them when tests/fixtures/outputs/ was made: a change that is meant to move no figure,
# verdict or word (a refactor) must leave them all as they were. A change that means to alter
# an output writes them again (same_outputs.sh --write) and says why in its commit.
# same_outputs.sh PREFLIGHT_REPORT WORKDIR [--write]
set -uo pipefail
report=$(realpath "$1") work=$2 mode=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fixtures=$root/tests/fixtures
expected=$fixtures/outputs
source "$here/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
cp "$fixtures/v1/run.h5" "$work/v1.h5" && cp "$fixtures/v1/baseline.h5" "$work/v1-baseline.h5"
cp "$fixtures/v2/run.h5" "$work/v2.h5" && cp "$fixtures/v2/baseline.h5" "$work/v2-baseline.h5"
cp "$fixtures/h200/compute.h5" "$work/h200-compute.h5" && cp "$fixtures/h200/step.h5" "$work/h200-step.h5"

# name: the report's arguments (run in $work, with file names relative to it)
cases=(
  "v1-rules|v1.h5 --rules $root/configs/rules/acceptance.yaml"
  "v1-regression|v1.h5 --baseline v1-baseline.h5"
  "v2-rules|v2.h5 --rules $root/configs/rules/acceptance.yaml"
  "v2-regression|v2.h5 --baseline v2-baseline.h5"
  "v2-instances|v2.h5 v2-baseline.h5 --prices $root/configs/instances.yaml --label p5.48xlarge p5e.48xlarge"
  "h200-compute|h200-compute.h5"
  "h200-step|h200-step.h5"
)
for entry in "${cases[@]}"; do
  name=${entry%%|*} args=${entry#*|}
  out=$work/$name && mkdir -p "$out"
  # shellcheck disable=SC2086
  (cd "$work" && "$report" $args --no-color --md "$out/report.md" --json "$out/verdict.json" \
    --junit "$out/junit.xml" --prometheus "$out/metrics.prom" --html "$out/report.html" \
    >"$out/terminal.txt" 2>"$out/stderr.txt")
  echo $? >"$out/exit_code"
  # The paths of the rules and price files and of this run's copies are the machine's, not the
  # report's (the command lines the files recorded are kept: they are the files' own).
  sed -i "s|$root/configs/|ROOT/configs/|g; s|$work|WORK|g" "$out"/*
done
(cd "$work" && "$report" v2.h5 --make-reference "$work/reference.yaml" >/dev/null 2>&1)
echo $? >"$work/reference.exit_code"

if [[ $mode == --write ]]; then
  rm -rf "$expected" && mkdir -p "$expected"
  for entry in "${cases[@]}"; do cp -r "$work/${entry%%|*}" "$expected/"; done
  cp "$work/reference.yaml" "$work/reference.exit_code" "$expected/"
  echo "wrote $expected"
  exit 0
fi
for entry in "${cases[@]}"; do
  name=${entry%%|*}
  for file in "$expected/$name"/*; do
    f=$(basename "$file")
    cmp -s "$file" "$work/$name/$f" && pass "$name/$f: identical" ||
      { fail "$name/$f differs from tests/fixtures/outputs"; diff "$file" "$work/$name/$f" | head -20; }
  done
done
for f in reference.yaml reference.exit_code; do
  cmp -s "$expected/$f" "$work/$f" && pass "$f: identical" ||
    { fail "$f differs"; diff "$expected/$f" "$work/$f" | head -20; }
done
finish
