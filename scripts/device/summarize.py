#!/usr/bin/env python3
"""What device-check.sh prints of one check, from what preflight printed and preflight-report's
JSON: the standard library only (a GPU machine's python3 may have nothing else).

  summarize.py row NAME LOG JSON GPUS
      one summary: cases and status, skipped cases and why, the best busbw of the console's
      tables (never a one-rank collective's: it has none), and for one GPU what the NCCL rows are
  summarize.py targets COMPUTE_LOG TORCH_LINE_FILE
      the issue's targets as ratios, one line each: bf16 GEMM 8192^3 against torch.matmul in the
      same run, HBM triad against BabelStream's published 4.1 TB/s for H200, pinned H2D and D2H
      against 55 GB/s; a figure the run did not produce is said so, never made up
  summarize.py estimate DRY_RUN_LOG...
      the sum of the '# timing: about N s' lines of preflight's dry runs
"""
import json
import math
import re
import sys

# (case name pattern, size column, size, figure column, reference, reference words)
HBM_REFERENCE_GBS = 4100.0  # BabelStream's H200 triad, the target basis
LINK_REFERENCE_GBS = 55.0


def tables(log_path):
    """[(case name, header, [rows])] of the console's tables in the order they ran: a
    '[case ...] NAME · ...' line, a '#' header of column names (and a '#' line of units), then
    rows of as many tokens. Two benchmarks can print the same case name (gemm and gemm-sustained
    both run 'cublaslt bfloat16 square'): each keeps its own entry."""
    out, header = [], None
    for line in open(log_path, errors="replace"):
        m = re.match(r"\[case [^\]]*\] (.*?) · ", line)
        if m:
            header = None
            out.append((m.group(1), None, []))
            continue
        tokens = line.split()
        if not out or not tokens:
            continue
        if line.startswith("#"):
            if header is None and len(tokens) > 1:
                header = tokens[1:]
                out[-1] = (out[-1][0], header, [])
            continue
        if header and len(tokens) == len(header):
            out[-1][2].append(tokens)
    return out


def number(text):
    try:
        return float(text)
    except ValueError:
        return math.nan


def figure(log_path, case_pattern, size_column, size, column):
    """The first `column` of the row whose `size_column` is `size`, in the first case whose name
    matches; NaN when there is none."""
    for name, header, rows in tables(log_path):
        if not header or not re.search(case_pattern, name) or column not in header:
            continue
        for row in rows:
            if size_column in header and number(row[header.index(size_column)]) == size:
                return number(row[header.index(column)])
    return math.nan


def row(name, log_path, json_path, gpus):
    skipped, cases, status = [], "?", "?"
    try:
        doc = json.load(open(json_path))
        runs = doc.get("runs", [])
        cases = sum(r.get("cases", 0) for r in runs)
        status = ",".join(r.get("status", "?") for r in runs)
        for r in doc.get("reasons", []):
            text = r.get("text", "")
            if ": skipped: " in text:
                why = text.split(": skipped: ", 1)[1]
                skipped.append(why.split(": ", 1)[1] if why.startswith("benchmark ") else why)
    except Exception as e:  # noqa: BLE001 - a summary, not a judge
        status = f"unread ({e})"
    best = 0.0
    for _, header, rows in tables(log_path):
        for column in ("busbw", "batched_busbw"):
            if header and column in header:
                for r in rows:
                    value = number(r[header.index(column)])
                    if not math.isnan(value):
                        best = max(best, value)
    text = f"{cases} case(s), status {status}"
    if best > 0:
        text += f", best busbw {best:.3g} GB/s"
    elif gpus == 1 and "nccl" in name and cases not in (0, "?"):
        text += ", one GPU: a launch and correctness check (one rank: no bandwidth)"
    shown = []
    for why in skipped:
        short = why.split(" (")[0].split(";")[0]
        if short not in shown:
            shown.append(short)
    text += "".join(f"; skipped: {why}" for why in shown)
    return text


def ratio_line(label, value, reference, reference_words):
    if math.isnan(value) or math.isnan(reference) or reference <= 0:
        return f"target {label}: not measured in this run"
    return f"target {label}: {value:.4g} / {reference:.4g} {reference_words} = {value / reference:.3f}"


def targets(compute_log, torch_file):
    lines = []
    gemm = figure(compute_log, r"^cublaslt bfloat16 square$", "gemm_m", 8192, "tflops")
    torch = math.nan
    try:
        m = re.search(r": ([0-9.]+) TFLOP/s", open(torch_file).read())
        torch = float(m.group(1)) if m else math.nan
    except OSError:
        pass
    lines.append(ratio_line("bf16 GEMM 8192^3 >= 0.97 x torch.matmul", gemm, torch,
                            "TFLOP/s (torch.matmul, same run)"))
    triad = figure(compute_log, r"^cuda hbm_triad GPU 0 alone$", "array_bytes", 2 ** 30, "bw")
    lines.append(ratio_line("HBM triad >= 0.95 x 4.1 TB/s", triad, HBM_REFERENCE_GBS,
                            "GB/s (BabelStream's H200 triad)"))
    for copy in ("h2d", "d2h"):
        bw = figure(compute_log, rf"^cuda {copy} GPU 0 alone$", "array_bytes", 2 ** 30, "bw")
        lines.append(ratio_line(f"pinned {copy.upper()} >= 0.95 x 55 GB/s", bw,
                                LINK_REFERENCE_GBS, "GB/s"))
    return lines


def estimate(paths):
    total, found = 0.0, 0
    for path in paths:
        for line in open(path, errors="replace"):
            m = re.match(r"# timing: about ([0-9.]+) s", line)
            if m:
                total += float(m.group(1))
                found += 1
    return total, found


def main(argv):
    if len(argv) >= 6 and argv[1] == "row":
        print(row(argv[2], argv[3], argv[4], int(argv[5])))
    elif len(argv) == 4 and argv[1] == "targets":
        print("\n".join(targets(argv[2], argv[3])))
    elif len(argv) >= 3 and argv[1] == "estimate":
        total, found = estimate(argv[2:])
        print(f"{total:.0f} {found}")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
