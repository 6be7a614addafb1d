#!/usr/bin/env python3
"""The public API of the workspace's library crates, one item a line, from
rustdoc's JSON output (`cargo rustdoc -- -Z unstable-options
--output-format json`): modules, types, traits, functions, constants,
macros, re-exports of other crates' items, the inherent methods, public
fields and variants of each type, and the traits each implements (derived
and blanket ones left out). Items hidden from the docs are left out.

    public_api.py DOC_DIR CRATE...   prints the list

Names only, not signatures: a renamed, added or removed item shows in the
diff, a changed signature does not.
"""
import json
import sys


def hidden(item):
    return any("hidden" in json.dumps(attr) and "doc" in json.dumps(attr) for attr in item.get("attrs") or [])


def kind_of(item):
    return next(iter(item["inner"]))


def type_name(ty):
    """A short rendering of a type named in an `impl` (its path)."""
    if not isinstance(ty, dict):
        return str(ty)
    if "resolved_path" in ty:
        return ty["resolved_path"]["path"]
    if "generic" in ty:
        return ty["generic"]
    if "borrowed_ref" in ty:
        return "&" + type_name(ty["borrowed_ref"]["type"])
    return next(iter(ty))


def listing(doc, crate):
    index = doc["index"]
    lines = set()
    seen = set()

    def members(item, path):
        inner = item["inner"][kind_of(item)]
        for impl_id in inner.get("impls", []):
            impl = index.get(str(impl_id))
            if impl is None:
                continue
            body = impl["inner"]["impl"]
            if body.get("is_synthetic") or body.get("blanket_impl") is not None:
                continue
            if "automatically_derived" in json.dumps(impl.get("attrs") or []):
                trait = body.get("trait")
                if trait and trait["path"] != "StructuralPartialEq":
                    lines.add(f"{path}: derive {trait['path']}")
                continue
            trait = body.get("trait")
            if trait:
                lines.add(f"{path}: impl {trait['path']}")
                continue
            for method_id in body["items"]:
                method = index.get(str(method_id))
                if method and method["visibility"] == "public" and not hidden(method):
                    lines.add(f"{path}::{method['name']} {kind_of(method)}")
        kind = item["inner"].get("struct", {}).get("kind")
        if isinstance(kind, dict) and "plain" in kind:
            for field_id in kind["plain"]["fields"]:
                field = index.get(str(field_id))
                if field and field["visibility"] == "public" and not hidden(field):
                    lines.add(f"{path}.{field['name']} field")
        for variant_id in item["inner"].get("enum", {}).get("variants", []):
            variant = index.get(str(variant_id))
            if variant and not hidden(variant):
                lines.add(f"{path}::{variant['name']} variant")
        for method_id in item["inner"].get("trait", {}).get("items", []):
            method = index.get(str(method_id))
            if method and not hidden(method):
                lines.add(f"{path}::{method['name']} {kind_of(method)}")

    def walk(module, path):
        if (module["id"], path) in seen:
            return
        seen.add((module["id"], path))
        for child_id in module["inner"]["module"]["items"]:
            child = index.get(str(child_id))
            if child is None or child["visibility"] != "public" or hidden(child):
                continue
            kind = kind_of(child)
            if kind == "use":
                use = child["inner"]["use"]
                target = index.get(str(use["id"])) if use["id"] is not None else None
                if use["is_glob"]:
                    if target is not None and kind_of(target) == "module":
                        walk(target, path)
                    else:
                        lines.add(f"{path}::* = pub use {use['source']}::*")
                    continue
                name = f"{path}::{use['name']}"
                if target is None:
                    lines.add(f"{name} = pub use {use['source']}")
                    continue
                child, kind = target, kind_of(target)
            else:
                name = f"{path}::{child['name']}"
            if hidden(child):
                continue
            lines.add(f"{name} {kind}")
            if kind == "module":
                walk(child, name)
            elif kind in ("struct", "enum", "union", "trait"):
                members(child, name)

    walk(index[str(doc["root"])], crate)
    return sorted(lines)


def main():
    directory, crates = sys.argv[1], sys.argv[2:]
    for crate in crates:
        with open(f"{directory}/{crate}.json") as file:
            doc = json.load(file)
        for line in listing(doc, crate):
            print(line)


if __name__ == "__main__":
    main()
