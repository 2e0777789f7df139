"""Prints one summary line over meson test logs (*.json) and pytest JUnit XML files (*.xml);
exits 1 on failures. Usage: summary.py FILE... (a missing file counts as a failure)."""
import json
import sys
import xml.etree.ElementTree as ET


def count_meson(path):
    passed = failed = skipped = 0
    with open(path) as f:
        for line in f:
            r = json.loads(line)["result"]
            if r in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif r == "SKIP":
                skipped += 1
            else:
                failed += 1
    return passed, failed, skipped


def count_junit(path):
    passed = failed = skipped = 0
    root = ET.parse(path).getroot()
    for suite in root.iter("testsuite"):
        n = int(suite.get("tests", 0))
        f = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        s = int(suite.get("skipped", 0))
        failed += f
        skipped += s
        passed += n - f - s
    return passed, failed, skipped


def main():
    passed = failed = skipped = 0
    for path in sys.argv[1:]:
        try:
            p, f, s = count_junit(path) if path.endswith(".xml") else count_meson(path)
        except (OSError, ValueError, ET.ParseError):
            p, f, s = 0, 1, 0
        passed += p
        failed += f
        skipped += s
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
