#!/usr/bin/env bash
# What issue 36 ("Declared once, typed, read by name") measures, counted on the tree: each count
# is a place where a name or a meaning is written outside its one declaration in results-schema/,
# or where the report's layers point back. Every count must be 0 (ctest declared_once_counts).
# --ceilings FILE allows a count up to its line in FILE ("NAME COUNT"), for work under way.
#
#   meaning_bodies           a family writes its own meaning() body (bench/*/, tests/family/)
#   string_attribute_reads   reports/ reads a case attribute by a string: param(...), number_param(...),
#                            get("...") (get takes a declared schema::Attr), params.find("..."),
#                            params.at("..."), params["..."]
#   status_literals          a case or run status compared with a literal ("ok", "failed", ...)
#   family_name_literals     a family compared with, or named by, a literal name ("comm") instead of
#                            its constant (family_names.hpp): a comparison, a Family's name()
#   undeclared_attribute_writes  a case attribute made from a name, not from a declared Attr:
#                            Param{...} or {"name", value, "unit", bool} in bench/ and tests/family/,
#                            positional item(N, ...), an attribute vector indexed by an enum
#   index_enums              what stands for a place in a schema table in results-schema/'s
#                            headers: an enum with a fixed underlying type (enum class X : ...,
#                            enum X : size_t), a constant set from index_in(...) (a place is found
#                            at its use site), a static_assert keeping a table aligned with one
#   twin_meaning_structs     a reader-side struct Meaning besides schema::CaseMeaning
#   analysis_to_render       includes from reports/analysis or reports/plugins into reports/render
#   render_to_reader         includes from reports/render into reports/reader, or of case_view.hpp
#   render_to_plugins        includes from reports/render into reports/plugins (a renderer reads the
#                            Report model only)
#   relative_includes        includes in reports/ written relative to the file ("../render/x.hpp"),
#                            which the layer counts above would not see
#   reports_to_bench         includes from reports/ of a file under bench/
#   format_helper_copies     definitions of pct, seconds, with_unit, percent, percent_significant,
#                            whole_percent, duration beyond one each in reports/
#
# check-declared-once.sh [REPO_ROOT] [--ceilings FILE | --list]   (default: every count 0; --list names each hit)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -gt 0 && $1 != --* ]] && { root=$1; shift; }
mode=${1:---zero} ceilings=${2:-}
exec /usr/bin/env python3 - "$root" "$mode" "$ceilings" <<'PY'
import functools, pathlib, re, sys

root, mode, ceilings_path = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]

# Comments, string literals (raw ones too) and character literals, in the order they start.
TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|R"\(.*?\)"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])+\'', re.S)

@functools.lru_cache(maxsize=None)
def code(path):
    """The file's text without comments (string literals kept)."""
    return TOKEN.sub(lambda m: "" if m.group(0).startswith(("//", "/*")) else m.group(0),
                     path.read_text())

def sources(*dirs):
    for d in dirs:
        base = root / d
        if base.exists():
            yield from sorted(p for p in base.rglob("*") if p.suffix in (".cpp", ".hpp", ".cu"))

def count(pattern, files, flags=0):
    rx = re.compile(pattern, flags)
    hits = []
    for p in files:
        for m in rx.finditer(code(p)):
            hits.append(f"{p.relative_to(root)}: {m.group(0).strip()[:70]}")
    return hits

bench_dirs = [p.name for p in (root / "bench").iterdir() if p.is_dir()]
family_code = [p for p in sources("bench", "tests/family") if "harness" not in p.parts]
reports = list(sources("reports"))
writers_and_readers = list(sources("bench", "reports", "tests/family", "common"))
schema = list(sources("results-schema/include"))

counts = {}
counts["meaning_bodies"] = count(r"\bmeaning\(\)\s*const\s*(override\s*)?\{", family_code)
counts["string_attribute_reads"] = count(
    r"(?<![\w:])(number_)?param\(|(?<![\w:])get\(\s*(std::string(_view)?[({]\s*)?\"", reports) + count(
    r"\bparams\s*(?:\.\s*(?:find|at|count|contains)\s*\(|\[)\s*\"", reports)
counts["status_literals"] = count(
    r"\bstatus\w*(?:\(\))?\s*[!=]=\s*\"[a-z_]+\"|\"[a-z_]+\"\s*[!=]=\s*[\w.>-]*status\w*\b",
    writers_and_readers)
counts["family_name_literals"] = count(
    r"\bfamily\w*(?:\(\))?\s*[!=]=\s*\"[a-z_]+\"|\"[a-z_]+\"\s*[!=]=\s*[\w.>-]*family\w*\b",
    writers_and_readers) + count(
    r"\bname\(\)\s*const\s*override\s*\{\s*return\s*\"[a-z_]+\"",
    [p for p in family_code if p.name.endswith("_family.cpp")])
counts["undeclared_attribute_writes"] = (
    count(r"(?<!struct )\bParam\s*[{(]", family_code + list(sources("bench/harness")))
    + count(r"\{\s*\"[a-z][a-z0-9_]*\"\s*,[^{};]*?,\s*\"[^\"]*\"\s*,\s*(true|false)\s*\}", family_code)
    + count(r"\bitem\(\s*\d+\s*,", family_code)
    + count(r"\bv\[\s*s::k[A-Z]\w*\]\s*=", family_code))
counts["index_enums"] = (
    count(r"\benum\s+(?:(?:class|struct)\s+\w+\s*:|\w+\s*:\s*(?:std::)?size_t\b)", schema)
    + count(r"=\s*(?:\w+::)*index_in\s*\(", schema)
    + count(r"static_assert\([^;]*\[k\w+\]", schema))
counts["twin_meaning_structs"] = count(r"\bstruct\s+Meaning\b", reports)
inc = lambda files, target: count(r'#include\s+"(' + target + r')/[^"]+"', files)
analysis_plugins = [p for p in reports if p.parts[-2] in ("analysis", "plugins")]
render = [p for p in reports if p.parts[-2] == "render"]
counts["analysis_to_render"] = inc(analysis_plugins, "render")
counts["render_to_reader"] = inc(render, "reader") + count(r'#include\s+"analysis/case_view\.hpp"', render)
counts["render_to_plugins"] = inc(render, "plugins")
counts["relative_includes"] = count(r'#include\s+"(?:\./)*\.\./[^"]*"', reports)
counts["reports_to_bench"] = inc(reports, "|".join(map(re.escape, bench_dirs)))
defs = {}
for name in ("pct", "seconds", "with_unit", "percent", "percent_significant", "whole_percent",
             "duration"):
    defs[name] = count(r"^(?:inline\s+|static\s+)?(?:std::string|auto)\s+" + name + r"\s*\([^;{]*\)\s*(?:->\s*[\w:]+\s*)?\{",
                       reports, re.M)
counts["format_helper_copies"] = [h for hits in defs.values() for h in hits[1:]]

ceilings = {}
if mode == "--ceilings":
    for line in pathlib.Path(ceilings_path).read_text().splitlines():
        line = line.split("#")[0].split()
        if len(line) == 2: ceilings[line[0]] = int(line[1])
failed = 0
print(f"{'count':30} {'now':>5} {'ceiling':>8}")
for name, hits in counts.items():
    limit = ceilings.get(name, 0)
    bad = len(hits) > limit
    failed += bad
    print(f"{name:30} {len(hits):5} {limit:8}{'  ABOVE CEILING' if bad else ''}")
    if bad or "-v" in sys.argv or mode == "--list":
        for h in hits: print(f"    {h}")
total = sum(len(h) for h in counts.values())
print(f"total {total}: {'every count is 0' if total == 0 else 'not every count is 0 yet (issue 36)'}")
sys.exit(1 if failed else 0)
PY
