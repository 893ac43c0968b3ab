#!/usr/bin/env python3
"""Damaged copies of a results file through preflight-report: each must be refused (exit 2,
one message naming the file, no HDF5 error stack) or give exactly the intact file's report.
An identical report is right only where the damage changed nothing the file holds: with
--h5dump, each such copy is dumped whole (every attribute and dataset read, so every checksum
checked); the dump must fail or equal the intact file's. A dump that differs is data changed
without a checksum noticing, the failure this test exists to find. Crashes (a signal, or a
sanitizer's report), hangs (--timeout) and any other outcome fail too.

  fuzz_report.py --report BIN --file RESULTS.h5 --work DIR [--count N] [--seed S]
                 [--timeout SECONDS] [--h5dump h5dump]

Mutations, drawn from --seed (the same seed and file give the same copies): 1-64 bytes changed
at random places; a run of 1-64 bytes at one place; one bit flipped. Copies that fail are kept
in DIR as bad-<n>.h5 with the mutation printed. Standard library only.
Exit 0 when every copy is refused or reported identically; 1 otherwise; 2 on bad arguments.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import time

SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "UndefinedBehaviorSanitizer")


def mutate(data, rng):
    """A damaged copy of `data` and a description of the damage."""
    out = bytearray(data)
    kind = rng.choices(["bytes", "run", "bit"], weights=[6, 2, 2])[0]
    if kind == "bytes":
        places = sorted(rng.sample(range(len(out)), rng.randint(1, min(64, len(out)))))
        for at in places:
            out[at] = (out[at] + rng.randint(1, 255)) % 256
        return bytes(out), f"{len(places)} bytes at {places[:8]}{' ...' if len(places) > 8 else ''}"
    if kind == "run":
        length = rng.randint(1, 64)
        at = rng.randrange(0, max(1, len(out) - length))
        for i in range(at, min(at + length, len(out))):
            out[i] = (out[i] + rng.randint(1, 255)) % 256
        return bytes(out), f"a run of {length} bytes at {at}"
    at = rng.randrange(len(out))
    bit = rng.randrange(8)
    out[at] ^= 1 << bit
    return bytes(out), f"bit {bit} of byte {at}"


class Report:
    """preflight-report on one path: exit code, console output and the verdict files."""

    def __init__(self, binary, path, work, timeout):
        self.binary, self.path, self.work, self.timeout = binary, path, work, timeout
        self.json, self.md = os.path.join(work, "verdict.json"), os.path.join(work, "summary.md")

    def run(self):
        """(outcome, detail): outcome is 'hang' or a tuple of everything the report produced."""
        for out in (self.json, self.md):
            if os.path.exists(out):
                os.remove(out)
        try:
            r = subprocess.run([self.binary, self.path, "--no-color", "--json", self.json, "--md", self.md],
                               capture_output=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return "hang", f"no answer within {self.timeout} s"
        files = tuple(open(p, "rb").read() if os.path.exists(p) else None for p in (self.json, self.md))
        return (r.returncode, r.stdout, r.stderr) + files, ""


def dump(path, h5dump, timeout):
    """h5dump's whole-file dump: (exit code, output); (None, why) when it hung."""
    try:
        r = subprocess.run([h5dump, path], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "h5dump hung"
    return r.returncode, r.stdout


def judge_refusal(stdout, stderr, path):
    """'' when an exit 2 is a proper refusal: one message naming the file, no HDF5 stack."""
    text = (stdout + stderr).decode(errors="replace")
    if "HDF5-DIAG" in text or "#000:" in text:
        return "HDF5's error stack was printed"
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return "exit 2 without a message"
    if not any(path in line for line in lines):
        return f"the message does not name the file: {lines[0][:160]}"
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report", required=True, help="the preflight-report binary")
    parser.add_argument("--file", required=True, help="an intact results file")
    parser.add_argument("--work", required=True, help="a directory for the copies (emptied first)")
    parser.add_argument("--count", type=int, default=300, help="damaged copies to try (300)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the mutations (1)")
    parser.add_argument("--timeout", type=float, default=20, help="seconds one report may take (20)")
    parser.add_argument("--h5dump", help="h5dump: dump every identically reported copy (see above)")
    args = parser.parse_args()
    if not os.access(args.report, os.X_OK):
        print(f"fuzz_report: --report {args.report}: not an executable", file=sys.stderr)
        return 2
    if not os.path.isfile(args.file):
        print(f"fuzz_report: --file {args.file}: no such file", file=sys.stderr)
        return 2
    if args.count < 1:
        print(f"fuzz_report: --count {args.count}: give 1 or more", file=sys.stderr)
        return 2

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    intact = open(args.file, "rb").read()
    path = os.path.join(args.work, "results.h5")  # every copy under the same name: same report text
    report = Report(os.path.abspath(args.report), path, args.work, args.timeout)

    def put(data):
        with open(path, "wb") as f:
            f.write(data)

    put(intact)
    reference, why = report.run()
    again, _ = report.run()
    if reference == "hang" or reference[0] not in (0, 1, 3) or reference != again:
        print(f"fuzz_report: the intact file gives no steady report to compare with "
              f"({why or (reference[0], reference[2][:300])})", file=sys.stderr)
        return 1
    reference_dump = dump(path, args.h5dump, args.timeout) if args.h5dump else None
    if reference_dump is not None and reference_dump[0] != 0:
        print(f"fuzz_report: h5dump cannot read the intact file: {reference_dump[1][:300]}", file=sys.stderr)
        return 1

    rng = random.Random(args.seed)
    counts = {"refused, a checksum failed": 0, "refused, other reason": 0,
              "identical, unused bytes": 0, "identical, damage where the report does not read": 0,
              "identical (not dumped)": 0}
    bad = []
    examples = {}  # the first message of each kind of refusal
    started = time.monotonic()
    for n in range(args.count):
        data, what = mutate(intact, rng)
        put(data)
        outcome, why = report.run()
        problem = ""
        if outcome == "hang":
            problem = f"hang: {why}"
        else:
            rc, stdout, stderr = outcome[:3]
            sanitizer = next((m for m in SANITIZER_MARKS if m.encode() in stderr), None)
            if rc < 0:
                problem = f"crash: signal {-rc}"
            elif sanitizer:
                problem = f"crash: {sanitizer} reported (exit {rc})"
            elif rc == 2:
                problem = judge_refusal(stdout, stderr, path)
                if not problem:
                    kind = "refused, a checksum failed" if b"checksum failed" in stderr else "refused, other reason"
                    counts[kind] += 1
                    examples.setdefault(kind, (stdout + stderr).decode(errors="replace").strip())
            elif outcome != reference:
                problem = f"a different report (exit {rc}, the intact file's {reference[0]})"
            elif reference_dump is None:
                counts["identical (not dumped)"] += 1
            else:
                code, text = dump(path, args.h5dump, args.timeout)
                if code is None:
                    problem = "identical report, but h5dump hung on the copy"
                elif code != 0:
                    counts["identical, damage where the report does not read"] += 1
                elif text == reference_dump[1]:
                    counts["identical, unused bytes"] += 1
                else:
                    problem = "identical report, but h5dump reads other values: data changed unchecked"
        if problem:
            kept = os.path.join(args.work, f"bad-{n}.h5")
            shutil.copyfile(path, kept)
            bad.append(f"copy {n} ({what}): {problem}; kept as {kept}")
            if outcome != "hang" and outcome[2]:
                bad.append("    " + outcome[2].decode(errors="replace").strip().splitlines()[-1][:300])
    seconds = time.monotonic() - started
    print(f"fuzz_report: {args.count} damaged copies of {args.file} ({len(intact)} bytes, seed {args.seed}) "
          f"in {seconds:.0f} s")
    for name, count in counts.items():
        if count:
            print(f"  {count:6d}  {name}")
            if name in examples:
                print(f"            e.g. {examples[name][:300]}")
    print(f"  {sum(1 for b in bad if not b.startswith('    ')):6d}  failed (crash, hang, different report, "
          f"improper refusal, unchecked change)")
    for line in bad[:40]:
        print("  " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
