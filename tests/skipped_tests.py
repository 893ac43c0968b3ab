#!/usr/bin/python3
"""After ctest: the tests that did not run, each with its reason, so that a reader of CI's log
never takes "100% tests passed" for "everything ran". Reads the JUnit XML ctest wrote
(--output-junit, or the test preset's outputJUnitFile): a test is listed when ctest did not run
it to a pass or a failure (status notrun: skipped with SKIP_RETURN_CODE, or not run; status
disabled). A test that ran part of its checks and could not run the rest exits 77 too, so it is
listed. Its reason is the last line of its output that says "skipped" (what our tests print
before exit 77), or else ctest's own message.

  skipped_tests.py JUNIT.xml      prints the list; exit 0 (the list informs, ctest judges)
"""
import re
import sys
import xml.etree.ElementTree as ET

SAID = re.compile(r"^\s*(skipped|skip)\b[: ]", re.IGNORECASE)


def reason(case):
    out = case.findtext("system-out") or ""
    said = [line.strip() for line in out.splitlines() if SAID.match(line)]
    if said:
        return said[-1]
    skipped = case.find("skipped")
    if skipped is not None and skipped.get("message"):
        return skipped.get("message") + " (the test printed no reason)"
    return case.get("status", "not run")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
    except (OSError, ET.ParseError) as e:
        print(f"skipped tests: cannot read {sys.argv[1]}: {e}")
        return 0
    cases = list(cases)
    listed = [(c.get("name"), reason(c)) for c in cases if c.get("status") in ("notrun", "disabled")]
    print(f"Tests that did not run: {len(listed)} of {len(cases)}" + (":" if listed else ""))
    for name, why in listed:
        print(f"  {name}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
