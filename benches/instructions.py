#!/usr/bin/env python3
"""Instructions per call of the call-path variants (benches/instructions.rs),
counted with valgrind's callgrind: repeatable whatever else the machine is
doing. Each variant runs twice, with LOW and HIGH calls; the difference in
instructions over the difference in calls is one call, set-up excluded.

    python3 benches/instructions.py
"""

import pathlib
import re
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
LOW, HIGH = 200, 1200
VARIANTS = ["a", "b", "c", "a-value", "b-value", "c-value", "b-errors", "c-errors", "g-floor", "g-ours", "s-floor", "s-ours"]


def binary():
    out = subprocess.run(
        ["cargo", "bench", "--bench", "instructions", "--no-run", "--message-format=json"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    for line in out.splitlines():
        if '"executable":' in line and "instructions" in line:
            match = re.search(r'"executable":"([^"]+)"', line)
            if match:
                return match.group(1)
    raise SystemExit("the instructions bench was not built")


def instructions(exe, variant, calls):
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", exe, variant, str(calls)],
            check=True, capture_output=True,
        )
        for line in out.read_text().splitlines():
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit("no totals in the callgrind output")


def main():
    exe = binary()
    per_call = {}
    for variant in VARIANTS:
        low = instructions(exe, variant, LOW)
        high = instructions(exe, variant, HIGH)
        per_call[variant] = (high - low) / (HIGH - LOW)
        print(f"{variant:10} {per_call[variant] / 1000:8.1f} k instructions per call")
    print()
    for suffix in ["", "-value"]:
        a, b, c = (per_call[v + suffix] for v in "abc")
        print(f"(c{suffix})/(a{suffix}) = {c / a:.2f}   (b{suffix})/(c{suffix}) = {b / c:.2f}")
    print(f"errors: (c)/(b) = {per_call['c-errors'] / per_call['b-errors']:.2f}")
    print(f"gateway: {(per_call['g-ours'] - per_call['g-floor']) / 1000:.1f} k instructions a call over parsing the answer")
    print(f"soap gateway: {(per_call['s-ours'] - per_call['s-floor']) / 1000:.1f} k instructions a call over formatting the envelope and reading the answer")


if __name__ == "__main__":
    main()
