"""Prints one summary line over meson test logs (*.json) and pytest JUnit XML files (*.xml);
exits 1 on failures. Failed tests are named (FAILED ...) above the line. Usage: summary.py FILE... (a missing file counts as a failure)."""
import json
import sys
import xml.etree.ElementTree as ET


def count_meson(path, failures):
    passed = failed = skipped = 0
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            r = t["result"]
            if r in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif r == "SKIP":
                skipped += 1
            else:
                failed += 1
                failures.append(f"{path}: {t.get('name', '?')} ({r})")
    return passed, failed, skipped


def count_junit(path, failures):
    passed = failed = skipped = 0
    root = ET.parse(path).getroot()
    for suite in root.iter("testsuite"):
        n = int(suite.get("tests", 0))
        f = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        s = int(suite.get("skipped", 0))
        failed += f
        skipped += s
        passed += n - f - s
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failures.append(f"{path}: {case.get('classname', '')}::{case.get('name', '?')}")
    return passed, failed, skipped


def main():
    passed = failed = skipped = 0
    failures = []
    for path in sys.argv[1:]:
        try:
            count = count_junit if path.endswith(".xml") else count_meson
            p, f, s = count(path, failures)
        except (OSError, ValueError, ET.ParseError) as e:
            p, f, s = 0, 1, 0
            failures.append(f"{path}: unreadable ({e})")
        passed += p
        failed += f
        skipped += s
    # the failures are named just above the summary line, so a log's tail says which ones failed
    for line in failures:
        print(f"FAILED {line}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
