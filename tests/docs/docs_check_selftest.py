#!/usr/bin/python3
"""The docs check's own test: a check that cannot fail proves nothing. Runs docs_check.py on
fixtures/drift.md, where every block drifted in its own way, and requires exit 1 with each
block named as a failure for its reason; on fixtures/unmarked_skip.md (a skip with no reason)
exit 1 naming the missing reason; and on fixtures/good.md, whose blocks use every directive,
exit 0 with every block run but the one skipped.

  docs_check_selftest.py --preflight BIN --report BIN --build DIR --root REPO --work DIR

Exit 0 when the checker caught every drift and passed the good page; 1 otherwise.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import docs_check  # noqa: E402  (the parser, to find the fixture's blocks by line)

# Each block of drift.md, in order, and the words its failure must give.
DRIFT_REASONS = [
    "after 0 matching line(s)|no line matches its first line",   # 42 case(s) where 41 are printed
    "after 1 matching line(s)",                                   # lines no longer consecutive
    "exited 2",                                                   # an option that is gone
    "exited 2",                                                   # a config the parser refuses
    "the check cannot run",                                       # an unmarked yaml block
    "python raised",                                              # a snippet that raises
    "--no-such-option: not in the output",                        # a synopsis with a lost option
    "replace: '-np 16' is not in the block",                      # a directive left behind
]


def run_checker(args, fixture):
    command = [sys.executable, os.path.join(HERE, "docs_check.py"), "--preflight", args.preflight,
               "--report", args.report, "--build", args.build, "--root", args.root,
               "--work", os.path.join(args.work, os.path.basename(fixture)), "--results-command", "",
               fixture]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    return done.returncode, done.stdout


def failed_blocks(output, fixture):
    """file:line -> the FAIL message of that block."""
    return {m.group(1): m.group(2) for m in re.finditer(rf"^  FAIL ({re.escape(fixture)}:\d+) (.*)$", output, re.M)}


def main():
    parser = argparse.ArgumentParser()
    for name in ("--preflight", "--report", "--build", "--root", "--work"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    problems = []

    drift = os.path.join(HERE, "fixtures", "drift.md")
    rc, output = run_checker(args, drift)
    print(output)
    blocks = docs_check.parse_markdown(drift, drift)
    if len(blocks) != len(DRIFT_REASONS):
        problems.append(f"drift.md has {len(blocks)} blocks, the test expects {len(DRIFT_REASONS)}")
    if rc != 1:
        problems.append(f"drift.md: the checker exited {rc}, expected 1")
    failed = failed_blocks(output, drift)
    for block, reason in zip(blocks, DRIFT_REASONS):
        message = failed.get(block.where)
        if message is None:
            problems.append(f"{block.where}: not reported as a failure")
        elif not any(words in message for words in reason.split("|")):
            problems.append(f"{block.where}: reported, but not for '{reason}': {message}")
    if f"0 block(s) ran, 0 skipped, {len(DRIFT_REASONS)} failed" not in output:
        problems.append(f"drift.md: the summary does not count {len(DRIFT_REASONS)} failures")

    no_reason = os.path.join(HERE, "fixtures", "unmarked_skip.md")
    rc, output = run_checker(args, no_reason)
    print(output)
    if rc != 1 or "'skip' needs a reason" not in output:
        problems.append(f"unmarked_skip.md: expected exit 1 naming the missing reason, got {rc}")

    good = os.path.join(HERE, "fixtures", "good.md")
    rc, output = run_checker(args, good)
    print(output)
    runnable = len(docs_check.parse_markdown(good, good)) - 1
    if rc != 0 or f"{runnable} block(s) ran, 1 skipped, 0 failed" not in output:
        problems.append(f"good.md: expected exit 0 with {runnable} blocks run and 1 skipped, got exit {rc}")

    for problem in problems:
        print(f"docs check self-test: FAIL {problem}")
    if problems:
        return 1
    print(f"docs check self-test: {len(DRIFT_REASONS)} drifted blocks caught, the missing skip reason caught, "
          f"{runnable} good blocks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
