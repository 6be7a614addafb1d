//! The crates' modules point one way (DESIGN §2): each runtime layer uses
//! only the layers below it, and no two sibling modules of any crate use
//! each other, directly or around a loop. Read from the sources themselves:
//! every `crate::…` and `super::…` path outside comments and test modules.
//!
//! A module's children may use what their parent defines (the parent owns
//! them); everything else is a sibling edge, and sibling edges must not
//! close a cycle.

#![allow(missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path inside its crate: `["validate", "one_pass", "plan"]`.
type ModulePath = Vec<String>;

/// Every module of the crate rooted at `src`, with its source text
/// (comments and `#[cfg(test)]` tails removed).
fn modules(src: &Path) -> BTreeMap<ModulePath, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("source directory") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).expect("inside src");
            let mut parts: ModulePath = relative
                .with_extension("")
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            let text = std::fs::read_to_string(&path).expect("source");
            out.insert(parts, code_of(&text));
        }
    }
    out
}

/// The code of a file: without comments, string contents, and the test
/// module at its end.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut previous = ' ';
                for c in chars.by_ref() {
                    if previous == '*' && c == '/' {
                        break;
                    }
                    previous = c;
                }
            }
            '"' => {
                out.push('"');
                let mut escaped = false;
                for c in chars.by_ref() {
                    match (escaped, c) {
                        (true, _) => escaped = false,
                        (false, '\\') => escaped = true,
                        (false, '"') => break,
                        _ => {}
                    }
                }
                out.push('"');
            }
            other => out.push(other),
        }
    }
    out
}

/// The module paths a module's code names, resolved against the crate's
/// modules (the longest module prefix of each path).
fn uses(
    module: &ModulePath,
    code: &str,
    all: &BTreeMap<ModulePath, String>,
) -> BTreeSet<ModulePath> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = BTreeSet::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !is_ident(bytes[i - 1]);
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let (mut base, skip) = if starts_word && rest.starts_with("crate::") {
            (Vec::new(), 7)
        } else if starts_word && rest.starts_with("super::") {
            (module[..module.len().saturating_sub(1)].to_vec(), 7)
        } else {
            i += 1;
            continue;
        };
        let mut j = i + skip;
        // `super::super::…` and the segments after the root.
        let mut segments = Vec::new();
        loop {
            let start = j;
            while j < bytes.len() && is_ident(bytes[j]) {
                j += 1;
            }
            if start == j {
                break;
            }
            let segment: String = bytes[start..j].iter().collect();
            if segment == "super" && segments.is_empty() {
                base.pop();
            } else {
                segments.push(segment);
            }
            if bytes.get(j) == Some(&':') && bytes.get(j + 1) == Some(&':') {
                j += 2;
            } else {
                break;
            }
        }
        let mut path = base;
        let mut found = path.clone();
        for segment in segments {
            path.push(segment);
            if all.contains_key(&path) {
                found = path.clone();
            }
        }
        out.insert(found);
        i = j.max(i + 1);
    }
    out
}

/// The edges between siblings: `a` uses something in (or under) its sibling
/// `b`, both children of the same parent. Uses of an ancestor are not edges.
fn sibling_edges(all: &BTreeMap<ModulePath, String>) -> BTreeSet<(ModulePath, ModulePath)> {
    let mut edges = BTreeSet::new();
    for (module, code) in all {
        for target in uses(module, code, all) {
            if target.starts_with(module) || module.starts_with(&target) {
                continue;
            }
            let common = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            edges.insert((module[..=common].to_vec(), target[..=common].to_vec()));
        }
    }
    edges
}

/// A loop among `edges`, if there is one.
fn cycle(edges: &BTreeSet<(ModulePath, ModulePath)>) -> Option<Vec<ModulePath>> {
    fn visit(
        node: &ModulePath,
        edges: &BTreeSet<(ModulePath, ModulePath)>,
        path: &mut Vec<ModulePath>,
        done: &mut BTreeSet<ModulePath>,
    ) -> Option<Vec<ModulePath>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut found = path[at..].to_vec();
            found.push(node.clone());
            return Some(found);
        }
        if !done.insert(node.clone()) {
            return None;
        }
        path.push(node.clone());
        for (_, to) in edges.iter().filter(|(from, _)| from == node) {
            if let Some(found) = visit(to, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .iter()
        .find_map(|(from, _)| visit(from, edges, &mut Vec::new(), &mut done))
}

fn crate_src(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(name)
        .join("src")
}

fn show(path: &[ModulePath]) -> String {
    path.iter()
        .map(|m| m.join("::"))
        .collect::<Vec<_>>()
        .join(" -> ")
}

#[test]
fn no_two_sibling_modules_use_each_other() {
    for name in ["text", "macros", "runtime", "serve", "cli"] {
        let all = modules(&crate_src(name));
        assert!(!all.is_empty(), "{name}: no modules read");
        if let Some(found) = cycle(&sibling_edges(&all)) {
            panic!("{name}: modules use each other: {}", show(&found));
        }
    }
}

/// The runtime's layers, lowest first.
const RUNTIME_LAYERS: [&str; 7] = [
    "model", "render", "project", "validate", "call", "catalog", "export",
];

#[test]
fn runtime_layers_point_one_way() {
    let all = modules(&crate_src("runtime"));
    let rank = |module: &ModulePath| {
        module
            .first()
            .and_then(|top| RUNTIME_LAYERS.iter().position(|layer| layer == top))
    };
    let mut seen = BTreeSet::new();
    for (module, code) in &all {
        let Some(own) = rank(module) else { continue };
        seen.insert(module[0].clone());
        for target in uses(module, code, &all) {
            if let Some(theirs) = rank(&target) {
                assert!(
                    theirs <= own,
                    "`{}` (layer {}) uses `{}`, a higher layer ({})",
                    module.join("::"),
                    RUNTIME_LAYERS[own],
                    target.join("::"),
                    RUNTIME_LAYERS[theirs]
                );
            }
        }
    }
    assert_eq!(seen.len(), RUNTIME_LAYERS.len(), "every layer was read");
}

#[test]
fn the_scanner_finds_uses_and_cycles() {
    let mut all = BTreeMap::new();
    let a = vec!["a".to_owned()];
    let b = vec!["b".to_owned()];
    let b_c = vec!["b".to_owned(), "c".to_owned()];
    all.insert(a.clone(), code_of("use crate::b::c::Thing; // crate::z\n"));
    all.insert(b.clone(), String::new());
    all.insert(
        b_c.clone(),
        code_of("use super::super::a::f; let s = \"crate::b\";"),
    );
    assert_eq!(uses(&a, &all[&a], &all), BTreeSet::from([b_c.clone()]));
    assert_eq!(uses(&b_c, &all[&b_c], &all), BTreeSet::from([a.clone()]));
    let edges = sibling_edges(&all);
    assert_eq!(
        edges,
        BTreeSet::from([(a.clone(), b.clone()), (b.clone(), a.clone())])
    );
    assert!(cycle(&edges).is_some());
}
