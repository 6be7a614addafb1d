#!/usr/bin/env python3
"""What a service costs to build: the same three-tool notes service
(`notes/`: lengths, bounds, defaults, an enum, a uuid, a date-time, shared
state, Streamable HTTP) written with rmcp + schemars as rmcp's documentation
writes it, and with toolschema as its README does, each built from nothing
as its user would build it.

Each variant is a project generated under `work/build/` (ignored by git)
with a target directory of its own. Its dependencies are fetched first (not
timed); then `cargo build --release` runs from an empty target directory,
and the script reports the CPU time (user + system) cargo and its rustc
processes took, the crates compiled, the stripped binary's size and, from a
second cold build in the default development profile (not incremental, as
both builds), the debug binary's size. The toolschema variant reuses the workspace's `Cargo.lock`, so it
builds the dependency versions CI tests.

    python3 benches/compile/build_cost.py               # both variants
    python3 benches/compile/build_cost.py toolschema    # one

Run it on an otherwise idle machine: CPU time is steadier than wall time,
but two builds at once still inflate each other by a tenth or more.
"""

import os
import pathlib
import re
import resource
import shutil
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORK = HERE / "work" / "build"

COMMON = """serde = { version = "1", features = ["derive"] }
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
uuid = { version = "1", features = ["serde"] }
chrono = { version = "0.4", default-features = false, features = ["serde", "clock", "std"] }
"""

VARIANTS = {
    "rmcp": COMMON
    + 'rmcp = { version = "=3.11.0", features = ["server", "macros", "schemars", '
    '"transport-streamable-http-server"] }\n'
    'schemars = { version = "1", features = ["uuid1", "chrono04"] }\n'
    'axum = "0.8"\n',
    "toolschema": COMMON
    + f'toolschema = {{ path = "{ROOT}", features = ["uuid", "chrono"] }}\n',
}


def generate(name):
    project = WORK / name
    (project / "src").mkdir(parents=True, exist_ok=True)
    (project / "Cargo.toml").write_text(
        f'[package]\nname = "notes-{name}"\nversion = "0.1.0"\nedition = "2024"\n'
        "publish = false\n\n[workspace]\n\n[dependencies]\n" + VARIANTS[name]
    )
    shutil.copyfile(HERE / "notes" / f"{name}.rs", project / "src" / "main.rs")
    if name == "toolschema":
        # Every run: `cargo fetch` rewrites the copy, and the workspace's
        # lock moves on.
        shutil.copyfile(ROOT / "Cargo.lock", project / "Cargo.lock")
    return project


def cold_build(project, profile):
    target = project / f"target-{profile}"
    shutil.rmtree(target, ignore_errors=True)
    command = ["cargo", "build"] + (["--release"] if profile == "release" else [])
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), CARGO_INCREMENTAL="0")
    # Nothing of the caller's set-up: no flags, no profile overrides, no
    # job limit, and no compiler wrapper (a cache would make the build
    # warm, and compile in a daemon whose CPU time is not counted here).
    unset = {
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_BUILD_JOBS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_RUSTC_WRAPPER",
        "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
    }
    for key in [k for k in env if k.startswith("CARGO_PROFILE_") or k in unset]:
        del env[key]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{project.name}: {' '.join(command)} failed:\n{done.stderr[-4000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    crates = len(re.findall(r"^\s*Compiling ", done.stderr, re.M))
    binary = target / ("release" if profile == "release" else "debug") / f"notes-{project.name}"
    return {"cpu": cpu, "wall": wall, "crates": crates, "binary": binary}


def measure(name):
    project = generate(name)
    subprocess.run(["cargo", "fetch"], cwd=project, check=True, capture_output=True)
    release = cold_build(project, "release")
    stripped = project / "stripped"
    shutil.copyfile(release["binary"], stripped)
    subprocess.run(["strip", str(stripped)], check=True)
    debug = cold_build(project, "dev")
    result = {
        "cpu": release["cpu"],
        "wall": release["wall"],
        "crates": release["crates"],
        "stripped": stripped.stat().st_size,
        "debug": debug["binary"].stat().st_size,
        "debug_cpu": debug["cpu"],
    }
    for profile in ("release", "dev"):
        shutil.rmtree(project / f"target-{profile}", ignore_errors=True)
    return result


def main():
    names = sys.argv[1:] or list(VARIANTS)
    results = {}
    for name in names:
        if name not in VARIANTS:
            sys.exit(f"unknown variant `{name}`; the variants are {', '.join(VARIANTS)}")
        results[name] = measure(name)
        r = results[name]
        print(
            f"{name}: release {r['cpu']:.0f} s CPU ({r['wall']:.0f} s wall), "
            f"{r['crates']} crates, stripped {r['stripped'] / 1e6:.1f} MB; "
            f"debug binary {r['debug'] / 1e6:.0f} MB ({r['debug_cpu']:.0f} s CPU)",
            flush=True,
        )
    if "rmcp" in results and "toolschema" in results:
        ours, theirs = results["toolschema"], results["rmcp"]
        print(
            f"toolschema/rmcp: CPU {ours['cpu'] / theirs['cpu']:.2f}, "
            f"binary {ours['stripped'] / theirs['stripped']:.2f}, "
            f"crates {ours['crates']}/{theirs['crates']}"
        )


if __name__ == "__main__":
    main()
