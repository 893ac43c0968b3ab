#!/usr/bin/env python3
"""Checks a Prometheus text exposition file (format 0.0.4) the way a strict reader would, without
promtool: every line a comment, a HELP, a TYPE or a sample; a metric's HELP and TYPE at most once
and before its samples; a metric's samples together; names and label names well formed; label
values quoted with only \\\\, \\" and \\n escapes; no label twice in a sample; no sample twice;
values numbers (or NaN, +Inf, -Inf). Prints one line per problem and exits 1 on any.

As a module, parse(text) returns [(name, labels dict, value)] or raises ValueError.
exposition_check.py FILE [--names HEADER]: with --names, every metric must be one of the names
declared in HEADER (bench/harness/sinks/textfile_metrics.hpp)."""
import argparse
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


def parse_labels(text, where):
    """text: what is between the braces; returns a dict."""
    labels, i = {}, 0
    while i < len(text):
        m = LABEL_NAME.match(text, i)
        if not m or text[m.end():m.end() + 2] != '="':
            raise ValueError(f"{where}: bad label at {text[i:i + 20]!r}")
        name, i, value = m.group(), m.end() + 2, []
        while True:
            if i >= len(text):
                raise ValueError(f"{where}: label {name}: unterminated value")
            c = text[i]
            if c == "\\":
                nxt = text[i + 1:i + 2]
                if nxt not in ("\\", '"', "n"):
                    raise ValueError(f"{where}: label {name}: bad escape \\{nxt}")
                value.append({"\\": "\\", '"': '"', "n": "\n"}[nxt])
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == "\n":
                raise ValueError(f"{where}: label {name}: raw line feed")
            else:
                value.append(c)
                i += 1
        if name in labels:
            raise ValueError(f"{where}: label {name} twice")
        labels[name] = "".join(value)
        if i < len(text):
            if text[i] != ",":
                raise ValueError(f"{where}: expected ',' after label {name}")
            i += 1
    return labels


def parse_value(text, where):
    if text in ("NaN", "+Inf", "-Inf"):
        return float(text.replace("Inf", "inf").replace("NaN", "nan"))
    if not re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text):
        raise ValueError(f"{where}: value {text!r} is not a number")
    return float(text)


def parse(text):
    if text and not text.endswith("\n"):
        raise ValueError("the file does not end with a line feed")
    samples, helps, types, finished, current, seen = [], set(), {}, set(), None, set()
    for n, line in enumerate(text.splitlines(), 1):
        where = f"line {n}"
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not NAME.fullmatch(name):
                    raise ValueError(f"{where}: bad metric name {name!r}")
                if name in finished or name == current:
                    raise ValueError(f"{where}: {parts[1]} for {name} after its samples")
                book = helps if parts[1] == "HELP" else types
                if name in book:
                    raise ValueError(f"{where}: second {parts[1]} for {name}")
                if parts[1] == "HELP":
                    helps.add(name)
                else:
                    if len(parts) != 4 or parts[3] not in TYPES:
                        raise ValueError(f"{where}: bad TYPE line")
                    types[name] = parts[3]
            continue
        if not line.strip():
            continue
        m = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?", line)
        if not m:
            raise ValueError(f"{where}: not a sample: {line[:60]!r}")
        name = m.group(1)
        labels = parse_labels(m.group(3) or "", where)
        value = parse_value(m.group(4), where)
        if name != current:
            if name in finished:
                raise ValueError(f"{where}: samples of {name} are not together")
            if current is not None:
                finished.add(current)
            current = name
        key = (name, tuple(sorted(labels.items())))
        if key in seen:
            raise ValueError(f"{where}: sample {name}{labels} twice")
        seen.add(key)
        samples.append((name, labels, value))
    for name in helps | set(types):
        if name not in {s[0] for s in samples}:
            raise ValueError(f"HELP or TYPE for {name}, which has no sample")
    return samples


def declared_names(header):
    names = re.findall(r'"(preflight_[a-z0-9_]+)"', open(header).read())
    if len(names) != len(set(names)):
        raise ValueError(f"{header}: a metric name is declared twice")
    return set(names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--names", help="the header that declares the metric names")
    a = ap.parse_args()
    try:
        samples = parse(open(a.file, encoding="utf-8").read())
        if a.names:
            unknown = {s[0] for s in samples} - declared_names(a.names)
            if unknown:
                raise ValueError(f"metrics not declared in {a.names}: {sorted(unknown)}")
    except (ValueError, UnicodeDecodeError) as e:
        print(f"{a.file}: {e}")
        return 1
    print(f"{a.file}: {len(samples)} samples, well formed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
