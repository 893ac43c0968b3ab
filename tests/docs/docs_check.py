#!/usr/bin/python3
"""The docs check: every fenced code block of README.md and docs/*.md is run, or checked, or
marked as not runnable in CI with a reason, so documented commands, snippets and outputs
cannot drift from what the programs do. The convention is in docs/testing.md ("The docs
check"); in short, a block is what its info string says:

  sh, bash      each command runs in a scratch copy of the workspace (below); it must exit 0
                (or a code the block's `exit` directive allows)
  console       lines starting with "$ " are commands; the lines after one, up to the next,
                are an excerpt of what it prints (matched as below)
  python        the file's python blocks run in order in one /usr/bin/python3 session
  anything else needs a directive: `file` + `check` (write the block to a file, run a command
                that validates it), `output-of` (the block is an excerpt of what a command
                prints), `options-in` (every --option of the block is in what a command
                prints) or `skip`

Directives are HTML comments (invisible when rendered), one per line, on the lines right
before the block's fence:

  <!-- docs-check: skip (REASON) -->          not run; counted and listed with its reason
  <!-- docs-check: replace "OLD" "NEW" (REASON) -->
                                              run (or match) the block with OLD replaced by NEW
  <!-- docs-check: before CMD -->             run CMD first (copy an input into place)
  <!-- docs-check: exit 0,1,3 (REASON) -->    exit codes that count as success
  <!-- docs-check: expect LINE -->            every command prints a line matching LINE
  <!-- docs-check: file NAME -->              write the block to NAME ...
  <!-- docs-check: check CMD -->              ... and run CMD on it
  <!-- docs-check: output-of CMD -->          the block is an excerpt of CMD's output
  <!-- docs-check: options-in CMD -->         every --option in the block is in CMD's output

An expected excerpt matches when its lines appear as consecutive lines of the output, runs of
spaces being equal to one space; in a line, `...` stands for any text, and a number written
with a decimal point (6.60, 0.5) for any number (a measured figure). Integers (counts, sizes,
iterations) and words must match as written. A line that is only `...` stands for any number
of lines.

The workspace: bin/ (preflight, preflight-report) first on PATH, the same binaries at
build/default/bench/preflight and build/default/reports/preflight-report, the build tree at
build/ci with CMakePresets.json (for ctest --preset ci), a copy of configs/,
scripts/mpi-env.sh sourced by every command (BASH_ENV), and results.h5 written once by
RESULTS_COMMAND (the quickstart's own command: comm and storage cases in well under a minute),
whose output an `output-of` of the same command reuses. Each markdown file gets its own copy.

  docs_check.py --preflight BIN --report BIN --build DIR --root REPO --work DIR [--python PY]
                [--results-command CMD] [FILE.md ...]   (default: README.md docs/*.md)

Exit 0 when every block ran and matched, 1 when one did not (each named with file:line and
why), 2 on bad usage.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

RESULTS_COMMAND = "mpirun -np 4 preflight run configs/quick.yaml -o results.h5"
COMMAND_LANGUAGES = {"sh", "bash", "shell"}
CONSOLE_LANGUAGES = {"console"}
PYTHON_LANGUAGES = {"python", "py"}
DIRECTIVE = re.compile(r"^\s*<!--\s*docs-check:\s*(?P<body>.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<info>[^`\s]*)\s*$")
KEYWORDS = ("skip", "replace", "before", "exit", "expect", "file", "check", "output-of", "options-in")
REPLACE = re.compile(r'"(?P<old>(?:[^"\\]|\\.)+)"\s+"(?P<new>(?:[^"\\]|\\.)*)"(?:\s+\(.+\))?')
EXIT_CODES = re.compile(r"(?P<codes>\d+(?:,\d+)*)(?:\s+\(.+\))?")
COMMAND_TIMEOUT_S = 240


class Block:
    def __init__(self, path, line, info, text, directives):
        self.path = path
        self.line = line  # 1-based line of the opening fence
        self.info = info.lower()
        self.text = text
        self.directives = directives  # list of (keyword, argument, line)

    @property
    def where(self):
        return f"{self.path}:{self.line}"

    def values(self, keyword):
        return [arg for key, arg, _ in self.directives if key == keyword]

    def value(self, keyword):
        found = self.values(keyword)
        return found[-1] if found else None


class DocsError(Exception):
    """A block that did not run as documented; the message says why."""


def parse_directive(body, where):
    keyword, _, argument = body.partition(" ")
    if keyword not in KEYWORDS:
        raise DocsError(f"{where}: unknown docs-check directive '{keyword}'; expected one of {', '.join(KEYWORDS)}")
    argument = argument.strip()
    if keyword == "skip":
        reason = argument.strip("() ")
        if not reason:
            raise DocsError(f"{where}: 'skip' needs a reason: <!-- docs-check: skip (needs a GPU) -->")
    elif keyword == "replace":
        if not REPLACE.fullmatch(argument):
            raise DocsError(f'{where}: replace takes two quoted strings and an optional (reason): '
                            f'replace "OLD" "NEW" (why); found \'{argument}\'')
    elif keyword == "exit":
        if not EXIT_CODES.fullmatch(argument):
            raise DocsError(f"{where}: exit takes a comma list of exit codes and an optional (reason), "
                            f"such as 0,1,3 (a verdict); found '{argument}'")
    elif not argument:
        raise DocsError(f"{where}: '{keyword}' needs an argument")
    return keyword, argument


def parse_markdown(path, display):
    """The fenced blocks of a markdown file, each with the directives right before it."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, pending, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        directive = DIRECTIVE.match(line)
        fence = FENCE.match(line)
        if directive:
            keyword, argument = parse_directive(directive.group("body"), f"{display}:{i + 1}")
            pending.append((keyword, argument, i + 1))
        elif fence:
            indent, marker = len(fence.group("indent")), fence.group("fence")
            body, j = [], i + 1
            while j < len(lines):
                closing = lines[j].strip()
                if closing.startswith(marker[0] * len(marker)) and set(closing) == {marker[0]}:
                    break
                body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j].lstrip())
                j += 1
            else:
                raise DocsError(f"{display}:{i + 1}: code block never closed")
            blocks.append(Block(display, i + 1, fence.group("info"), "\n".join(body) + "\n", pending))
            pending, i = [], j
        elif line.strip() and pending:
            raise DocsError(f"{display}:{pending[0][2]}: docs-check directive not followed by a code block")
        i += 1
    if pending:
        raise DocsError(f"{display}:{pending[0][2]}: docs-check directive not followed by a code block")
    return blocks


def logical_commands(text):
    """The commands of a shell block: continuation lines joined, blank and comment lines dropped."""
    commands, current = [], ""
    for line in text.split("\n"):
        if not current and (not line.strip() or line.strip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        commands.append((current + line).strip())
        current = ""
    if current.strip():
        commands.append(current.strip())
    return commands


def console_commands(text):
    """(command, expected output lines) for each "$ " line of a console block."""
    entries = []
    for line in text.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            entries.append([line[2:], []])
        elif line.startswith("> ") and entries and not entries[-1][1]:
            entries[-1][0] += "\n" + line[2:]
        elif entries:
            entries[-1][1].append(line)
        elif line.strip():
            raise DocsError(f"console blocks start with a '$ ' command line; found '{line}'")
    return [(command.replace("\\\n", " "), trim_blank(expected)) for command, expected in entries]


def trim_blank(lines):
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


DECIMAL = r"-?\d+\.\d+(?:[eE][-+]?\d+)?"
ANY_NUMBER = r"(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?nan|[-+]?inf)"


def line_pattern(expected):
    """A regex for one expected line: `...` any text, a decimal number any number, spaces any spaces."""
    pattern = ""
    for token in re.split(r"(\.\.\.|\s+|" + DECIMAL + r")", expected.strip()):
        if not token:
            continue
        if token == "...":
            pattern += ".*?"
        elif token.isspace():
            pattern += r"\s+"
        elif re.fullmatch(DECIMAL, token):
            pattern += ANY_NUMBER
        else:
            pattern += re.escape(token)
    return re.compile(pattern)


def excerpt_matches(expected, actual):
    """Whether the expected lines appear as consecutive lines of actual (a `...` line: any lines)."""
    patterns = [None if line.strip() == "..." else line_pattern(line) for line in expected]
    actual = [line.strip() for line in actual]

    def match_from(p, a):
        if p == len(patterns):
            return True
        if patterns[p] is None:
            return any(match_from(p + 1, k) for k in range(a, len(actual) + 1))
        return a < len(actual) and patterns[p].fullmatch(actual[a]) is not None and match_from(p + 1, a + 1)

    if not patterns:
        return True
    return any(match_from(0, start) for start in range(len(actual) + 1))


def closest_run(expected, actual):
    """Where the excerpt comes closest: (output line, lines matched, first expected line that did not)."""
    patterns = [line_pattern(line) for line in expected if line.strip() != "..."]
    kept = [line for line in expected if line.strip() != "..."]
    actual = [line.strip() for line in actual]
    best = (0, 0)
    for start in range(len(actual)):
        count = 0
        while (count < len(patterns) and start + count < len(actual)
               and patterns[count].fullmatch(actual[start + count])):
            count += 1
        best = max(best, (count, -start))
    count, start = best[0], -best[1]
    return start, count, kept[count] if count < len(kept) else None


class Workspace:
    """The scratch directories the blocks run in, and how a command runs there."""

    def __init__(self, args):
        self.args = args
        self.base = os.path.join(args.work, "base")
        self.remembered = {}  # command -> output, for output-of the results command
        shutil.rmtree(args.work, ignore_errors=True)
        os.makedirs(os.path.join(self.base, "bin"))
        for directory, binary, name in (("bin", args.preflight, "preflight"),
                                        ("bin", args.report, "preflight-report"),
                                        ("build/default/bench", args.preflight, "preflight"),
                                        ("build/default/reports", args.report, "preflight-report")):
            os.makedirs(os.path.join(self.base, directory), exist_ok=True)
            os.symlink(os.path.abspath(binary), os.path.join(self.base, directory, name))
        shutil.copytree(os.path.join(args.root, "configs"), os.path.join(self.base, "configs"))
        shutil.copy(os.path.join(args.root, "CMakePresets.json"), self.base)
        os.symlink(os.path.abspath(args.build), os.path.join(self.base, "build", "ci"))
        self.env = dict(os.environ)
        self.env["BASH_ENV"] = os.path.abspath(os.path.join(args.root, "scripts", "mpi-env.sh"))
        self.env["TMPDIR"] = os.path.join(args.work, "tmp")
        os.makedirs(self.env["TMPDIR"])
        self.env["DOCS_CHECK_ROOT"] = os.path.abspath(args.root)
        if args.results_command:
            rc, output, seconds = self.run(args.results_command, self.base)
            if rc != 0:
                raise DocsError(f"the results file for the examples: '{args.results_command}' exited {rc}:\n"
                                + tail(output))
            with open(os.path.join(args.work, "results-command.out"), "w") as out:
                out.write(output)
            print(f"docs check: results.h5 for the examples written in {seconds:.1f} s ({args.results_command})")
            self.remembered[args.results_command] = output

    def copy_for(self, display):
        directory = os.path.join(self.args.work, re.sub(r"[^A-Za-z0-9_.-]", "_", display))
        shutil.copytree(self.base, directory, symlinks=True)
        return directory

    def run(self, command, cwd):
        bin_dir = os.path.join(cwd, "bin")
        env = dict(self.env, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
        started = time.monotonic()
        try:
            done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=COMMAND_TIMEOUT_S)
        except subprocess.TimeoutExpired as timeout:
            output = (timeout.stdout or b"").decode(errors="replace")
            return 124, output + f"\n(docs check: killed after {COMMAND_TIMEOUT_S} s)", COMMAND_TIMEOUT_S
        return done.returncode, done.stdout.decode(errors="replace"), time.monotonic() - started


def tail(output, lines=15):
    kept = output.rstrip("\n").split("\n")[-lines:]
    return "\n".join("    | " + line for line in kept)


def allowed_codes(block):
    codes = block.value("exit")
    return {int(c) for c in EXIT_CODES.fullmatch(codes).group("codes").split(",")} if codes else {0}


def with_replacements(block, text):
    for argument in block.values("replace"):
        found = REPLACE.fullmatch(argument)
        old, new = (re.sub(r"\\(.)", r"\1", found.group(g)) for g in ("old", "new"))
        if old not in text:
            raise DocsError(f"replace: '{old}' is not in the block (the docs changed: update the directive)")
        text = text.replace(old, new)
    return text


def run_checked(workspace, block, command, cwd, expect=True):
    rc, output, _ = workspace.run(command, cwd)
    if rc not in allowed_codes(block):
        allowed = ",".join(str(c) for c in sorted(allowed_codes(block)))
        raise DocsError(f"'{command}' exited {rc} (expected {allowed}):\n{tail(output)}")
    for line in block.values("expect") if expect else []:
        pattern = line_pattern(line)
        if not any(pattern.fullmatch(printed.strip()) for printed in output.split("\n")):
            raise DocsError(f"'{command}' printed no line matching '{line}':\n{tail(output)}")
    return output


def check_excerpt(command, expected, output):
    actual = output.rstrip("\n").split("\n")
    if excerpt_matches(expected, actual):
        return
    start, count, missing = closest_run(expected, actual)
    if count == 0:
        raise DocsError(f"the output of '{command}' does not match the block: no line matches its first "
                        f"line '{expected[0].strip()}'; it printed:\n{tail(output, 25)}")
    shown = "\n".join("    | " + line for line in actual[start:start + count + 3])
    raise DocsError(f"the output of '{command}' does not match the block: after {count} matching line(s) "
                    f"from output line {start + 1}, the block expects\n    > {(missing or '').strip()}\n"
                    f"  where the output has:\n{shown}")


def run_shell_block(workspace, block, cwd):
    commands = logical_commands(with_replacements(block, block.text))
    if not commands:
        raise DocsError("a shell block with no command")
    for command in commands:
        run_checked(workspace, block, command, cwd)
    return f"{len(commands)} command(s)"


def run_console_block(workspace, block, cwd):
    entries = console_commands(with_replacements(block, block.text))
    if not entries:
        raise DocsError("a console block with no '$ ' command")
    for command, expected in entries:
        check_excerpt(command, expected, run_checked(workspace, block, command, cwd))
    return f"{len(entries)} command(s), output matched"


def run_output_block(workspace, block, cwd):
    command = block.value("output-of")
    output = workspace.remembered.get(command)
    if output is None:
        output = run_checked(workspace, block, command, cwd)
    expected = with_replacements(block, block.text)
    check_excerpt(command, trim_blank(expected.rstrip("\n").split("\n")), output)
    return "output matched"


def run_file_block(workspace, block, cwd):
    name, command = block.value("file"), block.value("check")
    if not name or not command:
        raise DocsError("'file NAME' and 'check CMD' go together: write the block to NAME, then run CMD")
    with open(os.path.join(cwd, name), "w", encoding="utf-8") as out:
        out.write(with_replacements(block, block.text))
    run_checked(workspace, block, command, cwd)
    return f"written to {name}, checked"


def run_options_block(workspace, block, cwd):
    command = block.value("options-in")
    known = set(re.findall(r"--[A-Za-z][\w-]*", run_checked(workspace, block, command, cwd)))
    shown = re.findall(r"--[A-Za-z][\w-]*", block.text)
    unknown = sorted(set(shown) - known)
    if unknown:
        raise DocsError(f"{', '.join(unknown)}: not in the output of '{command}'")
    return f"{len(set(shown))} option(s) found in '{command}'"


PYTHON_DRIVER = r"""
import json, sys, traceback
namespace = {"__name__": "__main__"}
for block in json.load(open(sys.argv[1])):
    try:
        exec(compile("\n" * block["line"] + block["code"], block["path"], "exec"), namespace)
    except BaseException as error:
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)  # from the block on
        print("docs-check-failed-block " + str(block["line"]))
        sys.exit(1)
    print("docs-check-done-block " + str(block["line"]), flush=True)
"""


def run_python_session(workspace, blocks, cwd):
    """Every python block of one file, in order, in one interpreter: later blocks use earlier names."""
    session = [{"path": b.path, "line": b.line, "code": with_replacements(b, b.text)} for b in blocks]
    with open(os.path.join(cwd, "docs-check-python.json"), "w") as out:
        json.dump(session, out)
    with open(os.path.join(cwd, "docs-check-python.py"), "w") as out:
        out.write(PYTHON_DRIVER)
    command = f"{shlex.quote(workspace.args.python)} docs-check-python.py docs-check-python.json"
    rc, output, _ = workspace.run(command, cwd)
    failed = re.search(r"^docs-check-failed-block (\d+)$", output, re.M)
    results = {}
    for block in blocks:
        if failed and int(failed.group(1)) == block.line:
            hint = (" (scripts/setup.sh installs the python3 modules the docs use)"
                    if "ModuleNotFoundError" in output else "")
            results[block.line] = DocsError(f"python raised{hint}:\n{tail(output.split('docs-check-failed-block')[0])}")
        elif re.search(rf"^docs-check-done-block {block.line}$", output, re.M):
            results[block.line] = "python ran"
        elif failed:
            results[block.line] = DocsError(f"not run: an earlier python block of {block.path} failed")
        else:
            results[block.line] = DocsError(f"python exited {rc}:\n{tail(output)}")
    return results


def kind_of(block):
    if block.value("skip") is not None:
        return "skip"
    if block.value("output-of"):
        return "output"
    if block.value("options-in"):
        return "options"
    if block.value("file") or block.value("check"):
        return "file"
    if block.info in COMMAND_LANGUAGES:
        return "shell"
    if block.info in CONSOLE_LANGUAGES:
        return "console"
    if block.info in PYTHON_LANGUAGES:
        return "python"
    return None


RUNNERS = {"shell": run_shell_block, "console": run_console_block, "output": run_output_block,
           "file": run_file_block, "options": run_options_block}


def check_file(workspace, path, display, log):
    """Runs one markdown file's blocks, a line for each appended to log; returns (ran, skipped,
    failures)."""
    blocks = parse_markdown(path, display)
    cwd = workspace.copy_for(display)
    ran, skipped, failures = 0, [], []
    python = [b for b in blocks if kind_of(b) == "python"]
    python_results = None
    for block in blocks:
        kind = kind_of(block)
        started = time.monotonic()
        try:
            if kind == "skip":
                skipped.append((block.where, block.value("skip").strip("() ")))
                log.append(f"  skip {block.where} ({block.value('skip').strip('() ')})")
                continue
            if kind is None:
                raise DocsError(f"a '{block.info or 'plain'}' block the check cannot run: give it a "
                                "directive (file + check, output-of, options-in) or "
                                "<!-- docs-check: skip (REASON) --> (docs/testing.md)")
            if kind == "python":
                if python_results is None:  # the first python block starts the file's session
                    for earlier in python:
                        for command in earlier.values("before"):
                            run_checked(workspace, earlier, command, cwd, expect=False)
                    python_results = run_python_session(workspace, python, cwd)
                result = python_results[block.line]
                if isinstance(result, DocsError):
                    raise result
                summary = result
            else:
                for command in block.values("before"):
                    run_checked(workspace, block, command, cwd, expect=False)
                summary = RUNNERS[kind](workspace, block, cwd)
            ran += 1
            log.append(f"  ok   {block.where} {block.info or 'plain'}: {summary} ({time.monotonic() - started:.1f} s)")
        except DocsError as error:
            failures.append(block.where)
            log.append(f"  FAIL {block.where} {block.info or 'plain'}: {error}")
    return ran, skipped, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preflight", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--build", required=True, help="the build tree (ctest blocks run there)")
    parser.add_argument("--root", required=True, help="the repository (configs/, scripts/mpi-env.sh)")
    parser.add_argument("--work", required=True, help="scratch directory (emptied first)")
    parser.add_argument("--python", default="/usr/bin/python3", help="runs the python blocks")
    parser.add_argument("--results-command", default=RESULTS_COMMAND,
                        help="writes results.h5 for the examples ('' for none)")
    parser.add_argument("--jobs", type=int, default=2, help="markdown files checked at a time")
    parser.add_argument("files", nargs="*", help="markdown files (default: README.md docs/*.md)")
    args = parser.parse_args()
    for name in ("preflight", "report"):
        if not os.access(getattr(args, name), os.X_OK):
            print(f"docs_check: --{name} {getattr(args, name)}: not an executable", file=sys.stderr)
            return 2
    files = args.files or [os.path.join(args.root, "README.md")] + sorted(
        glob.glob(os.path.join(args.root, "docs", "*.md")))
    started = time.monotonic()
    total_ran, total_skipped, total_failures = 0, [], []
    try:
        workspace = Workspace(args)

        def one_file(path):
            display = os.path.relpath(path, args.root) if not args.files else path
            log = [f"{display}:"]
            try:
                ran, skipped, failures = check_file(workspace, path, display, log)
            except DocsError as error:
                ran, skipped, failures = 0, [], [display]
                log.append(f"  FAIL {error}")
            return ran, skipped, failures, log

        # Files run side by side (each in its own copy of the workspace): most blocks are one
        # short process, and one at a time left a core idle. Their lines print in file order.
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for ran, skipped, failures, log in pool.map(one_file, files):
                print("\n".join(log), flush=True)
                total_ran += ran
                total_skipped += skipped
                total_failures += failures
    except DocsError as error:
        print(f"docs check: FAIL {error}")
        return 1
    print(f"docs check: {total_ran} block(s) ran, {len(total_skipped)} skipped, {len(total_failures)} failed "
          f"in {time.monotonic() - started:.0f} s")
    for where, reason in total_skipped:
        print(f"  skipped {where}: {reason}")
    for where in total_failures:
        print(f"  failed  {where}")
    return 1 if total_failures else 0


if __name__ == "__main__":
    sys.exit(main())
