#!/usr/bin/env python3
"""Compile cost of the derives: a crate of 50 tool structs deriving
toolschema's `Tool` + serde's `Deserialize`, against the same with
schemars' `JsonSchema` + `Deserialize`, against `Deserialize` alone.

Each variant is a crate generated under `work/` (ignored by git) that shares
one target directory. Dependencies are built once first; then the crate's own
source is touched and rebuilt 11 times, in rounds that interleave the
variants, and the median wall time is kept: the cost a user pays on every
edit. Run from anywhere:

    python3 benches/compile/compile_cost.py

Wall and CPU times on a shared two-core machine move by a third between
runs. `--instructions` counts instead what rustc executes to compile each
crate once from scratch (no incremental cache), with valgrind's callgrind:
the same figure run after run, though it leaves out what costs time without
instructions (mapping dependency metadata and the proc-macro library,
page faults).

    python3 benches/compile/compile_cost.py --instructions
"""

import os
import pathlib
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORK = HERE / "work"
STRUCTS = 50
RUNS = 11

VARIANTS = {
    "serde": {
        "deps": 'serde = { version = "1", features = ["derive"] }\n',
        "uses": "use serde::Deserialize;\n",
        "derive": "Deserialize",
        "nested": "Deserialize",
        "attr": "",
    },
    "toolschema": {
        "deps": 'serde = { version = "1", features = ["derive"] }\n'
        f'toolschema = {{ path = "{ROOT}", default-features = false }}\n',
        "uses": "use serde::Deserialize;\nuse toolschema::{Schema, Tool};\n",
        "derive": "Tool, Deserialize",
        "nested": "Schema, Deserialize",
        "attr": '#[tool(name = "bench.tool-{i}", output = Nested{i})]\n',
    },
    "schemars": {
        "deps": 'serde = { version = "1", features = ["derive"] }\nschemars = "1"\n',
        "uses": "use serde::Deserialize;\nuse schemars::JsonSchema;\n",
        "derive": "JsonSchema, Deserialize",
        "nested": "JsonSchema, Deserialize",
        "attr": "",
    },
}


def source(variant):
    v = VARIANTS[variant]
    out = ["#![allow(dead_code)]\n", v["uses"], "\n"]
    for i in range(STRUCTS):
        out.append(
            f"""/// The result of tool {i}.
#[derive({v["nested"]})]
pub struct Nested{i} {{
    /// An identifier.
    pub id: String,
    /// A count.
    pub count: u32,
}}

/// Does thing number {i}, with several arguments.
#[derive({v["derive"]})]
{v["attr"].format(i=i)}pub struct Tool{i} {{
    /// The name of the thing.
    pub name: String,
    /// How many times.
    pub times: u32,
    /// An optional note.
    pub note: Option<String>,
    /// Tags to attach.
    pub tags: Vec<String>,
    /// Whether to hurry.
    #[serde(default)]
    pub urgent: bool,
    /// A nested value.
    pub nested: Nested{i},
}}

"""
        )
    return "".join(out)


def write(variant):
    crate = WORK / variant
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "cost-{variant}"\nversion = "0.0.0"\nedition = "2024"\n'
        f"publish = false\n\n[workspace]\n\n[dependencies]\n{VARIANTS[variant]['deps']}"
    )
    (crate / "src" / "lib.rs").write_text(source(variant))
    return crate


def build(crate):
    subprocess.run(
        ["cargo", "build", "--quiet", "--manifest-path", str(crate / "Cargo.toml")],
        check=True,
        env={**__import__("os").environ, "CARGO_TARGET_DIR": str(WORK / "target")},
    )


def rustc_command(crate):
    """The rustc command cargo runs for the crate itself, without its
    incremental cache."""
    (crate / "src" / "lib.rs").touch()
    out = subprocess.run(
        ["cargo", "build", "-v", "--manifest-path", str(crate / "Cargo.toml")],
        check=True, capture_output=True, text=True,
        env={**os.environ, "CARGO_TARGET_DIR": str(WORK / "target")},
    ).stderr
    line = [l for l in out.splitlines() if "Running `" in l and "--crate-name cost_" in l][-1]
    command = line.split("Running `", 1)[1].rstrip("`")
    return re.sub(r" -C incremental=\S+", "", command)


def instructions(crates):
    counts = {}
    for variant, crate in crates.items():
        command = rustc_command(crate)
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "callgrind.out"
            subprocess.run(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + shlex.split(command),
                cwd=crate, check=True, capture_output=True,
            )
            total = next(
                int(l.split()[1]) for l in out.read_text().splitlines() if l.startswith("summary:")
            )
        counts[variant] = total
        print(f"instructions {variant:11} {total / 1e9:6.3f} G")
    base = counts["serde"]
    ours = counts["toolschema"] - base
    theirs = counts["schemars"] - base
    print(f"instructions overhead over serde: toolschema {ours / 1e9:.3f} G, schemars {theirs / 1e9:.3f} G")
    print(f"instructions toolschema overhead / schemars overhead = {ours / theirs:.2f} (target <= 0.50)")


def main():
    crates = {variant: write(variant) for variant in VARIANTS}
    if "--instructions" in sys.argv:
        for crate in crates.values():
            build(crate)  # dependencies, once
        instructions(crates)
        return
    for crate in crates.values():
        build(crate)  # dependencies, once
    # Rounds interleave the variants, so that a slow stretch of the machine
    # weighs on all of them alike.
    # Wall time, and the CPU time (user + system) of cargo and rustc, which a
    # busy neighbour on a shared machine disturbs less.
    times = {variant: [] for variant in VARIANTS}
    cpu = {variant: [] for variant in VARIANTS}
    for _ in range(RUNS):
        for variant, crate in crates.items():
            (crate / "src" / "lib.rs").touch()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            build(crate)
            times[variant].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[variant].append(
                after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            )
    for label, samples in [("wall", times), ("cpu", cpu)]:
        results = {}
        for variant, runs in samples.items():
            results[variant] = statistics.median(runs)
            print(f"{label:4} {variant:11} median {results[variant] * 1000:7.0f} ms  runs {[round(t * 1000) for t in runs]}")
        base = results["serde"]
        ours = results["toolschema"] - base
        theirs = results["schemars"] - base
        print(f"{label:4} overhead over serde: toolschema {ours * 1000:.0f} ms, schemars {theirs * 1000:.0f} ms")
        if theirs > 0:
            print(f"{label:4} toolschema overhead / schemars overhead = {ours / theirs:.2f} (target <= 0.50)")


if __name__ == "__main__":
    main()
