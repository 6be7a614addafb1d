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
"""

import pathlib
import statistics
import subprocess
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


def main():
    crates = {variant: write(variant) for variant in VARIANTS}
    for crate in crates.values():
        build(crate)  # dependencies, once
    # Rounds interleave the variants, so that a slow stretch of the machine
    # weighs on all of them alike.
    times = {variant: [] for variant in VARIANTS}
    for _ in range(RUNS):
        for variant, crate in crates.items():
            (crate / "src" / "lib.rs").touch()
            start = time.perf_counter()
            build(crate)
            times[variant].append(time.perf_counter() - start)
    results = {}
    for variant, runs in times.items():
        results[variant] = statistics.median(runs)
        print(f"{variant:11} median {results[variant] * 1000:7.0f} ms  runs {[round(t * 1000) for t in runs]}")
    base = results["serde"]
    ours = results["toolschema"] - base
    theirs = results["schemars"] - base
    print(f"overhead over serde: toolschema {ours * 1000:.0f} ms, schemars {theirs * 1000:.0f} ms")
    if theirs > 0:
        print(f"toolschema overhead / schemars overhead = {ours / theirs:.2f} (target <= 0.50)")


if __name__ == "__main__":
    main()
