#!/usr/bin/env bash
# The report's generic code names no family and no family's metric or attribute: what a figure
# means is read from the results file (docs/report.md, "How the report reads meaning"). This
# check fails when a C++ file under reports/analysis or reports/render (or the directories given)
# does. Family-specific analyses belong in reports/plugins/, which this does not check.
#
# The rule, on code only (comments are stripped first; text in comments is prose):
#  - a family name (bench/families.cpp's, plus those planned: dataloader, matmul, fabric,
#    checkpoint, memory, step) as a whole identifier, or as a whole word inside a string literal;
#  - a family's metric, counter or case-attribute name as a whole string literal ("busbw", a
#    lookup by name) or as a whole word inside one ("lat_p99 of ..."). A whole word: bounded by
#    characters other than letters, digits and '_' (so "group_count" does not contain "count").
#    The names come from the family schema headers results-schema/include/preflight/schema/*.hpp
#    other than layout.hpp, meaning.hpp and h5.hpp (the first field of each table entry,
#    Item{"name", ...}, and named string constants) when they exist, else from the list below
#    (what version-1 files hold).
#  - Harness-level words that happen to be some family's attribute or column too (nodes, ranks,
#    count, bytes, ...; ORDINARY below) are not checked: every case has nodes and ranks.
#  - Anywhere in reports/ (plug-ins and the reader too): a case attribute read by a string, a
#    string literal passed to get(...), param(...) or number_param(...): the report reads an
#    attribute through its one declaration, get(schema::Attr) (docs/report.md). The same rule as
#    string_attribute_reads of scripts/check-declared-once.sh.
#  - A line may opt out with a trailing comment `// names-ok: REASON` (e.g. a key of the verdict
#    JSON format that coincides with an attribute name). Each one is listed when the check runs.
#
# check-report-names.sh [REPO_ROOT [DIR...]]   (DIRs given: every rule on them)
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
shift || true
dirs=("$@")
given=--given
[[ ${#dirs[@]} -gt 0 ]] || { given=--default; dirs=("$root/reports/analysis" "$root/reports/render"); }
exec /usr/bin/env python3 - "$root" "$given" "${dirs[@]}" <<'PY'
import pathlib, re, sys

root = pathlib.Path(sys.argv[1])
default_dirs = sys.argv[2] == "--default"
dirs = [pathlib.Path(d) for d in sys.argv[3:]]

FAMILIES = {"comm", "storage", "dataloader", "matmul", "fabric", "checkpoint", "memory", "step"}
# The family tables of preflight and of the test-only build (whose family "pace" the report
# must judge without naming it).
# A table names a family by its literal or by its constant in family_names.hpp.
# A test-only family's name is its schema header's kFamily (tests/family/*_schema.hpp).
NAME_OF = dict(re.findall(r'(k\w+Family) = "([a-z_]+)"',
                          (root / "results-schema" / "include" / "preflight" / "schema" /
                           "family_names.hpp").read_text()))
for header in sorted((root / "tests" / "family").glob("*_schema.hpp")):
    for family in re.findall(r'string_view kFamily = "([a-z_]+)"', header.read_text()):
        NAME_OF[f"{header.name[:-len('_schema.hpp')]}::kFamily"] = family
for table in (root / "bench" / "families.cpp", root / "tests" / "family" / "families.cpp"):
    if table.exists():
        text = table.read_text()
        FAMILIES |= set(re.findall(r'FamilyEntry\{"([a-z_]+)"', text))
        FAMILIES |= {NAME_OF[k] for k in re.findall(r'FamilyEntry\{schema::(k\w+Family)', text)}
        FAMILIES |= {NAME_OF[k] for k in re.findall(r'FamilyEntry\{test::(\w+::kFamily)', text)}

# Version-1 names (until the writer's family schema headers exist).
BUILTIN = """
size_bytes count algbw busbw batched_algbw batched_busbw
collective dtype redop placement topology layout ladder_nodes
block_bytes agg_bw iops rank_bw_min rank_bw_median lat_p50 lat_p99 lat_p999
resident_before_max resident_before bytes_total bytes ops
engine cache_state fs_type file_layout queue_depth dataset_dir bytes_per_rank stonewall_s
interval_s
""".split()
ORDINARY = {"count", "bytes", "ops", "nodes", "ranks", "ranks_per_node", "root", "direct",
            "access", "threads", "verify", "engine", "placement", "collective", "name", "family",
            "backend", "status", "index", "units", "description", "point", "group", "time",
            "label", "none", "higher", "lower", "size",
            # a soak's round (the harness repeats the campaign in rounds), which the fabric
            # family's pair schedule also calls its passes' steps
            "round"}

schema_dir = root / "results-schema" / "include" / "preflight" / "schema"
headers = [h for h in sorted(schema_dir.glob("*.hpp"))
           if h.name not in ("layout.hpp", "meaning.hpp", "h5.hpp")]
# A test-only family's schema header (tests/family/*_schema.hpp).
headers += sorted((root / "tests" / "family").glob("*_schema.hpp"))
names = set()
if headers:
    for h in headers:
        code = h.read_text()
        # The first field of each table entry (Item{"name", ...}, Column{"name", ...}) and
        # named string constants (std::string_view kX = "name"); not units or descriptions.
        names |= set(re.findall(r'[A-Za-z_]\{\s*"([a-z][a-z0-9_]*)"', code))
        names |= set(re.findall(r'string_view\s+\w+\s*=\s*"([a-z][a-z0-9_]*)"', code))
        names |= set(re.findall(r'\.name\s*=\s*"([a-z][a-z0-9_]*)"', code))  # Column{.name = ...}
    source = ", ".join(h.name for h in headers)
else:
    names = set(BUILTIN)
    source = "the built-in version-1 list"
names -= ORDINARY
names -= FAMILIES

TOKEN = re.compile(r'''
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>R"(?P<delim>[^(\s]*)\((?P<rawbody>.*?)\)(?P=delim)")
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])+')
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
''', re.S | re.X)

def words(text):
    return re.findall(r"[A-Za-z0-9_]+", text)

failures, waived = [], []
def sources(ds):
    return sorted(p for d in ds for p in d.rglob("*") if p.suffix in (".cpp", ".hpp", ".h", ".cc"))
files = sources(dirs)
# Names are checked in the directories the report's generic code is in (or those given); reads
# by a string in all of reports/ (or in those given).
named_files = set(files)
read_files = set(sources([root / "reports"])) if default_dirs else set(files)
# A string literal as the first argument of get(, param( or number_param( (not std::get).
READ_BY_STRING = re.compile(r'(?<![\w:])(get|param|number_param)\(\s*(std::string(_view)?[({]\s*)?$')
for path in sorted(named_files | read_files):
    text = path.read_text()
    lines = text.split("\n")
    for m in TOKEN.finditer(text):
        line_no = text.count("\n", 0, m.start()) + 1
        line = lines[line_no - 1]
        if m.group("comment") or line.lstrip().startswith("#include"):
            continue
        where = f"{path.relative_to(root) if path.is_relative_to(root) else path}:{line_no}"
        if m.group("string") and path in read_files:
            call = READ_BY_STRING.search(text[max(0, m.start() - 40):m.start()])
            if call:  # no names-ok: a declared Attr exists, or is to be declared, for each
                failures.append(f"{where}: attribute read by a string: {call.group(1)}("
                                f"{m.group('string')}), not through its declared schema::Attr: "
                                f"{line.strip()}")
        if path not in named_files:
            continue
        hits = []
        if m.group("ident"):
            if m.group("ident") in FAMILIES:
                hits.append(f"identifier '{m.group('ident')}' is a family name")
        else:
            body = m.group("rawbody") if m.group("raw") else (m.group("string") or m.group("char") or "")[1:-1]
            if body in names:
                hits.append(f'string "{body}" is a family metric/attribute name')
            for w in set(words(body)):
                if w in FAMILIES:
                    hits.append(f"string contains the family name '{w}'")
                elif w in names and w != body:
                    hits.append(f"string contains the metric/attribute name '{w}'")
        if not hits:
            continue
        if "names-ok:" in line:
            waived.append(f"{where}: {line.split('names-ok:', 1)[1].strip()}")
            continue
        for h in hits:
            failures.append(f"{where}: {h}: {line.strip()}")

print(f"check-report-names: {len(files)} files, {len(FAMILIES)} family names, "
      f"{len(names)} metric/attribute names from {source}; reads by a string in "
      f"{len(read_files)} files")
for w in waived:
    print(f"  allowed (names-ok): {w}")
for f in failures:
    print(f"FAIL {f}")
sys.exit(1 if failures else 0)
PY
