#!/usr/bin/env python3
"""Instruction counts of the call path, schema access, rendering and the
gateway's own work (benches/callgrind.rs, run under callgrind by gungraun),
with the ratios and targets of benches/README.md.

    python3 benches/callgrind.py

gungraun's benchmark harness needs its runner binary, of the same version
as the `gungraun` dev-dependency; it is installed once under
target/gungraun-runner (or named by GUNGRAUN_RUNNER).
"""

import os
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
VERSION = "0.20.0"


def runner():
    named = os.environ.get("GUNGRAUN_RUNNER")
    if named:
        return named
    root = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "gungraun-runner"
    binary = root / "bin" / "gungraun-runner"
    if not binary.exists():
        subprocess.run(
            ["cargo", "install", "--quiet", "--locked", "gungraun-runner", "--version", VERSION, "--root", str(root)],
            check=True,
        )
    return str(binary)


def counts():
    out = subprocess.run(
        ["cargo", "bench", "--quiet", "--bench", "callgrind"],
        cwd=ROOT, check=True, capture_output=True, text=True,
        env=dict(os.environ, GUNGRAUN_RUNNER=runner()),
    ).stdout
    found, current = {}, None
    for line in out.splitlines():
        header = re.match(r"^callgrind::\w+::(\w+)", line)
        if header:
            current = header.group(1)
            continue
        value = re.match(r"^\s+Instructions:\s+(\d+)", line)
        if value and current:
            found[current] = int(value.group(1))
            current = None
    return found


def outside_allocator(group, bench):
    """A benchmark's instructions less those spent in glibc's allocator
    (malloc.c), from its callgrind output. Where the allocator's share
    depends on the heap's layout (whether a growing vector is extended in
    place or moved), not on the calls made, this is the stable count; the
    parse_args pair makes the same allocations in the same order."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    found = list((target / "gungraun" / "toolschema" / "callgrind" / group).glob(f"{bench}.*/callgrind.*.out"))
    if len(found) != 1:
        return None
    out = subprocess.run(
        ["callgrind_annotate", "--inclusive=no", "--threshold=100", str(found[0])],
        check=True, capture_output=True, text=True,
    ).stdout
    total = allocator = 0
    for line in out.splitlines():
        cost = re.match(r"^\s*([\d,]+) ", line)
        if not cost:
            continue
        value = int(cost.group(1).replace(",", ""))
        if "PROGRAM TOTALS" in line:
            total = value
        elif "malloc.c:" in line:
            allocator += value
    return total - allocator


def main():
    n = counts()
    for name, value in n.items():
        print(f"{name:22} {value / 1000:8.1f} k instructions")
    print()
    call = n["c_ours"] / n["a_serde"]
    errors = n["c_ours_errors"] / n["b_usual_errors"]
    print(f"(c)/(a) = {call:.2f} (target 1.25: {'met' if call <= 1.25 else 'not met'})   (b)/(c) = {n['b_usual'] / n['c_ours']:.2f}")
    ours, serde = outside_allocator("call_path", "c_ours"), outside_allocator("call_path", "a_serde")
    if ours and serde:
        stable = ours / serde
        print(f"(c)/(a) outside the allocator = {stable:.3f} ({ours / 1000:.1f} k / {serde / 1000:.1f} k; target 1.25: {'met' if stable <= 1.25 else 'not met'})")
    print(f"values: (c)/(a) = {n['c_ours_value'] / n['a_serde_value']:.2f}   (b)/(c) = {n['b_usual_value'] / n['c_ours_value']:.2f}")
    print(f"errors: (c)/(b) = {errors:.2f} (target 1.0: {'met' if errors <= 1.0 else 'not met'})")
    print(f"gateway, REST: {(n['gateway_rest'] - n['gateway_rest_floor']) / 1000:.1f} k over parsing the answer")
    print(f"gateway, SOAP: {(n['gateway_soap'] - n['gateway_soap_floor']) / 1000:.1f} k over formatting the envelope and reading one value")
    whole = n["end_to_end_ours"] / n["end_to_end_bare"]
    print(f"tools/call end to end: ours/bare = {whole:.2f} (target 1.25: {'met' if whole <= 1.25 else 'not met'})")
    whole_errors = n["end_to_end_ours_errors"] / n["end_to_end_usual_errors"]
    print(f"errors end to end: ours/bare = {whole_errors:.2f} (bare: serde and jsonschema, every violation; target 1.0: {'met' if whole_errors <= 1.0 else 'not met'})")
    state = n["call_stateful"] / n["call_stateless"]
    print(f"state: stateful/stateless call = {state:.3f} (target 1.02: {'met' if state <= 1.02 else 'not met'})")


if __name__ == "__main__":
    main()
