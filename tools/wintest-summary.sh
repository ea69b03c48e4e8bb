#!/usr/bin/env bash
# Reads the test2json events of Windows test runs (tools/wintest.sh) and says
# what ran: per package, or with --total over all of them. On a package's
# failure it prints the failed tests' output. Exits 1 when a test failed or
# a binary ended without a result (a crash, a timeout).
#
#   tools/wintest-summary.sh FILE.json
#   tools/wintest-summary.sh --total FILE.json...
exec python3 - "$@" <<'EOF'
import json, sys

args = sys.argv[1:]
total = args[:1] == ["--total"]
files = args[1:] if total else args
counts = {"pass": 0, "fail": 0, "skip": 0}
bad = False
skips = []
for name in files:
    out, result, pkg = {}, None, name
    with open(name, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            pkg = ev.get("Package", pkg)
            test, action = ev.get("Test"), ev.get("Action")
            if test:
                if action == "output":
                    out.setdefault(test, []).append(ev.get("Output", ""))
                elif action in counts and "/" not in test:
                    counts[action] += 1
                    if action == "fail" and not total:
                        print(f"--- FAIL {pkg} {test}")
                        # The test's own output, then its subtests' (a
                        # subtest's failure message is in its own output).
                        for t in [test] + sorted(k for k in out if k.startswith(test + "/")):
                            sys.stdout.write("".join(out[t]) if t in out else "")
                    if action == "skip" and not total:
                        why = [l.strip() for l in out.get(test, []) if ".go:" in l and "--- SKIP" not in l]
                        skips.append(f"{test}: {why[-1] if why else ''}")
            elif action in ("pass", "fail"):
                result = action
            elif action == "output" and not total:
                out.setdefault("", []).append(ev.get("Output", ""))
    if result != "pass":
        bad = True
        if result is None and not total:
            print(f"--- {pkg}: the test binary ended without a result; its last output:")
            sys.stdout.write("".join(out.get("", [])[-30:]))
    if not total:
        print(f"{pkg}: {'ok' if result == 'pass' else 'FAIL'}")
if total:
    print(f"wine: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
else:
    for s in skips:
        print(f"    skipped {s}")
sys.exit(1 if bad else 0)
EOF
