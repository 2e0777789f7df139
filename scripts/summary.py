"""Prints one summary line over meson's test log and pytest's JUnit XML; exits 1 on failures."""
import json
import sys
import xml.etree.ElementTree as ET


def main():
    meson_log, junit = sys.argv[1], sys.argv[2]
    passed = failed = skipped = 0
    try:
        with open(meson_log) as f:
            for line in f:
                r = json.loads(line)["result"]
                if r in ("OK", "EXPECTEDFAIL"):
                    passed += 1
                elif r == "SKIP":
                    skipped += 1
                else:
                    failed += 1
    except OSError:
        failed += 1
    try:
        root = ET.parse(junit).getroot()
        for suite in root.iter("testsuite"):
            n = int(suite.get("tests", 0))
            f = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
            s = int(suite.get("skipped", 0))
            failed += f
            skipped += s
            passed += n - f - s
    except (OSError, ET.ParseError):
        failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
