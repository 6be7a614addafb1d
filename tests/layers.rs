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
    for (path, text) in sources(src) {
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
        out.insert(parts, code_of(&text));
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
/// modules (the longest module prefix of each path), and through a
/// module's re-exports to where the item is defined: `super::{Config}`
/// names `config` when the parent has `pub use config::Config`.
fn uses(
    module: &ModulePath,
    code: &str,
    all: &BTreeMap<ModulePath, String>,
    exports: &BTreeMap<ModulePath, BTreeMap<String, ModulePath>>,
) -> BTreeSet<ModulePath> {
    let mut out = BTreeSet::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !is_ident(chars[i - 1]);
        let rest: String = chars[i..chars.len().min(i + 7)].iter().collect();
        if !(starts_word && (rest.starts_with("crate::") || rest.starts_with("super::"))) {
            i += 1;
            continue;
        }
        let (found, names, end) = path_at(module, &chars, i, all);
        let re_exported = exports.get(&found);
        let mut through = false;
        for name in &names {
            if let Some(source) = re_exported.and_then(|names| names.get(name)) {
                out.insert(source.clone());
                through = true;
            }
        }
        if !through {
            out.insert(found);
        }
        i = end.max(i + 1);
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The path starting at `chars[i]` (`crate::…` or `super::…`, relative to
/// `module`): the longest module it names, the names right after that
/// module (one, or a `{…}` group's first segments), and where it ends.
fn path_at(
    module: &ModulePath,
    chars: &[char],
    i: usize,
    all: &BTreeMap<ModulePath, String>,
) -> (ModulePath, Vec<String>, usize) {
    let mut base = if chars[i] == 'c' {
        Vec::new()
    } else {
        module[..module.len().saturating_sub(1)].to_vec()
    };
    let mut j = i + 7;
    let mut segments = Vec::new();
    let mut group = Vec::new();
    loop {
        if chars.get(j) == Some(&'{') {
            group = group_names(chars, j + 1);
            break;
        }
        let start = j;
        while j < chars.len() && is_ident(chars[j]) {
            j += 1;
        }
        if start == j {
            break;
        }
        let segment: String = chars[start..j].iter().collect();
        if segment == "super" && segments.is_empty() {
            base.pop();
        } else {
            segments.push(segment);
        }
        if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') {
            j += 2;
        } else {
            break;
        }
    }
    let mut path = base;
    let mut found = path.clone();
    let mut after = 0;
    for (k, segment) in segments.iter().enumerate() {
        path.push(segment.clone());
        if all.contains_key(&path) {
            found = path.clone();
            after = k + 1;
        }
    }
    let names = match segments.get(after) {
        Some(name) => vec![name.clone()],
        None => group,
    };
    (found, names, j)
}

/// The first segment of each entry of the `{…}` group starting at
/// `chars[j]` (the nested groups' entries are below those segments).
fn group_names(chars: &[char], mut j: usize) -> Vec<String> {
    let mut names = Vec::new();
    let mut depth = 0;
    let mut at_entry = true;
    while j < chars.len() {
        match chars[j] {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_entry = true,
            c if is_ident(c) && at_entry && depth == 0 => {
                let start = j;
                while j < chars.len() && is_ident(chars[j]) {
                    j += 1;
                }
                names.push(chars[start..j].iter().collect());
                at_entry = false;
                continue;
            }
            _ => {}
        }
        j += 1;
    }
    names
}

/// What each module re-exports (`pub use child::Item`, `pub(crate) use
/// child::{A, B as C}`), by exposed name, with the module it comes from.
fn re_exports(
    all: &BTreeMap<ModulePath, String>,
) -> BTreeMap<ModulePath, BTreeMap<String, ModulePath>> {
    let mut out: BTreeMap<ModulePath, BTreeMap<String, ModulePath>> = BTreeMap::new();
    for (module, code) in all {
        for statement in code.split(';') {
            let statement = statement.trim_start();
            let Some(path) = ["pub use ", "pub(crate) use ", "pub(super) use "]
                .iter()
                .find_map(|prefix| statement.strip_prefix(prefix))
            else {
                continue;
            };
            let path = path.trim();
            let relative = path.strip_prefix("self::").unwrap_or(path);
            let text: String = if relative.starts_with("crate::") || relative.starts_with("super::")
            {
                relative.to_owned()
            } else {
                // A child: written as the crate path of it.
                let mut prefix = module.join("::");
                if !prefix.is_empty() {
                    prefix.push_str("::");
                }
                format!("crate::{prefix}{relative}")
            };
            let chars: Vec<char> = text.chars().collect();
            let (source, _, _) = path_at(module, &chars, 0, all);
            if source == *module {
                continue;
            }
            for name in exposed_names(relative) {
                out.entry(module.clone())
                    .or_default()
                    .insert(name, source.clone());
            }
        }
    }
    out
}

/// The names a `use` path makes visible: its last segment, each of a
/// group's entries' last segments, `as` renames taken.
fn exposed_names(path: &str) -> Vec<String> {
    let inner = match (path.find('{'), path.rfind('}')) {
        (Some(open), Some(close)) if open < close => &path[open + 1..close],
        _ => path,
    };
    inner
        .split(',')
        .filter_map(|entry| {
            let entry = entry.trim();
            let name = match entry.split_once(" as ") {
                Some((_, alias)) => alias.trim(),
                None => entry.rsplit("::").next().unwrap_or(entry).trim(),
            };
            (!name.is_empty() && name.chars().all(is_ident) && name != "self")
                .then(|| name.to_owned())
        })
        .collect()
}

/// The edges between siblings: `a` uses something in (or under) its sibling
/// `b`, both children of the same parent. Uses of an ancestor are not edges.
fn sibling_edges(all: &BTreeMap<ModulePath, String>) -> BTreeSet<(ModulePath, ModulePath)> {
    let mut edges = BTreeSet::new();
    let exports = re_exports(all);
    for (module, code) in all {
        for target in uses(module, code, all, &exports) {
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
    for name in CRATES {
        let all = modules(&crate_src(name));
        assert!(!all.is_empty(), "{name}: no modules read");
        if let Some(found) = cycle(&sibling_edges(&all)) {
            panic!("{name}: modules use each other: {}", show(&found));
        }
    }
}

/// The layers of the schema and runtime crates, lowest first: a crate's
/// modules use only its own layers below them (the runtime's uses of the
/// schema are a crate dependency, which Cargo keeps one way).
const LAYERS: [(&str, &[&str]); 2] = [
    ("schema", &["model", "render", "project", "compat"]),
    ("runtime", &["validate", "call"]),
];

#[test]
fn runtime_layers_point_one_way() {
    for (name, layers) in LAYERS {
        let all = modules(&crate_src(name));
        let exports = re_exports(&all);
        let rank = |module: &ModulePath| {
            module
                .first()
                .and_then(|top| layers.iter().position(|layer| layer == top))
        };
        let mut seen = BTreeSet::new();
        for (module, code) in &all {
            let Some(own) = rank(module) else { continue };
            seen.insert(module[0].clone());
            for target in uses(module, code, &all, &exports) {
                if let Some(theirs) = rank(&target) {
                    assert!(
                        theirs <= own,
                        "{name}: `{}` (layer {}) uses `{}`, a higher layer ({})",
                        module.join("::"),
                        layers[own],
                        target.join("::"),
                        layers[theirs]
                    );
                }
            }
        }
        assert_eq!(seen.len(), layers.len(), "{name}: every layer was read");
    }
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
    let none = BTreeMap::new();
    assert_eq!(
        uses(&a, &all[&a], &all, &none),
        BTreeSet::from([b_c.clone()])
    );
    assert_eq!(
        uses(&b_c, &all[&b_c], &all, &none),
        BTreeSet::from([a.clone()])
    );
    let edges = sibling_edges(&all);
    assert_eq!(
        edges,
        BTreeSet::from([(a.clone(), b.clone()), (b.clone(), a.clone())])
    );
    assert!(cycle(&edges).is_some());
}

/// A loop through a parent's re-export is a loop: `gateway` names `Config`
/// through its parent, which re-exports it from `config`, and `config`
/// uses `gateway`.
#[test]
fn the_scanner_sees_through_re_exports() {
    let root: ModulePath = Vec::new();
    let config = vec!["config".to_owned()];
    let gateway = vec!["gateway".to_owned()];
    let mut all = BTreeMap::new();
    all.insert(
        root.clone(),
        code_of("mod config;\npub mod gateway;\npub use config::{Config, Status as State};\n"),
    );
    all.insert(config.clone(), code_of("use crate::gateway::Downstream;\n"));
    all.insert(
        gateway.clone(),
        code_of("use super::{Config, State};\nuse super::Other;\n"),
    );
    let exports = re_exports(&all);
    assert_eq!(exports[&root]["Config"], config);
    assert_eq!(exports[&root]["State"], config);
    assert_eq!(
        uses(&gateway, &all[&gateway], &all, &exports),
        BTreeSet::from([config.clone(), root.clone()])
    );
    let found = cycle(&sibling_edges(&all)).expect("the loop through the re-export");
    assert!(
        found.contains(&config) && found.contains(&gateway),
        "{found:?}"
    );
}

/// The workspace's crates, lowest layer first (DESIGN §2).
const CRATES: [&str; 15] = [
    "text",
    "macros",
    "schema",
    "runtime",
    "rmcp",
    "configured",
    "config",
    "catalog",
    "gateway",
    "import",
    "oauth",
    "serve",
    "testing",
    "store",
    "cli",
];

/// Each crate depends only on crates of lower layers (its `[dependencies]`,
/// not the tests' and benches').
#[test]
fn crates_point_one_way() {
    for (own, name) in CRATES.iter().enumerate() {
        let manifest = std::fs::read_to_string(crate_src(name).with_file_name("Cargo.toml"))
            .expect("manifest");
        let mut section = "";
        for line in manifest.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                section = line;
                continue;
            }
            if section != "[dependencies]" {
                continue;
            }
            for (theirs, other) in CRATES.iter().enumerate() {
                let dependency = format!("toolschema-{other}");
                if line.starts_with(&format!("{dependency} "))
                    || line.starts_with(&format!("{dependency}."))
                {
                    assert!(
                        theirs < own,
                        "toolschema-{name} depends on {dependency}, a higher layer"
                    );
                }
            }
        }
    }
}

/// The most lines a library crate's sources hold, their test modules left
/// out.
const MOST_CRATE_LINES: usize = 8_000;

/// The most lines a library source file holds, its test module left out.
const MOST_FILE_LINES: usize = 800;

/// The most lines a function spans, counted on its code (a comment's line
/// stays a line; a string's contents are left out).
const MOST_FUNCTION_LINES: usize = 150;

/// Every `.rs` file under `src`, with its text.
fn sources(src: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("source directory") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("source");
                out.push((path, text));
            }
        }
    }
    out
}

/// Each function of `code` (as [`code_of`] leaves it) that spans more than
/// `most` lines: its name and its lines.
fn long_functions(code: &str, most: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let Some(name) = function_name(line) else {
            continue;
        };
        let mut depth = 0i64;
        let mut opened = false;
        for (end, line) in lines.iter().enumerate().skip(at) {
            // A declaration without a body (a trait's) ends at its `;`.
            if !opened && line.trim_end().ends_with(';') {
                break;
            }
            for c in line.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if opened && depth <= 0 {
                if end - at + 1 > most {
                    out.push((name.to_owned(), end - at + 1));
                }
                break;
            }
        }
    }
    out
}

/// The name of the function a line declares, if it does.
fn function_name(line: &str) -> Option<&str> {
    let mut words = line.split_whitespace().peekable();
    while let Some(word) = words.next() {
        match word {
            "fn" => {
                let name = words.next()?;
                let end = name.find(|c: char| !is_ident(c)).unwrap_or(name.len());
                return Some(&name[..end]);
            }
            "pub" | "async" | "const" | "unsafe" | "extern" | "\"C\"" | "default" => {}
            w if w.starts_with("pub(") => {}
            _ => return None,
        }
    }
    None
}

#[test]
fn library_files_and_functions_stay_readable() {
    let mut problems = Vec::new();
    for name in CRATES {
        let mut crate_lines = 0;
        for (path, text) in sources(&crate_src(name)) {
            let shown = path
                .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .unwrap_or(&path)
                .display()
                .to_string();
            let kept = match text.find("#[cfg(test)]\nmod tests") {
                Some(at) => &text[..at],
                None => &text,
            };
            let lines = kept.lines().count();
            crate_lines += lines;
            if lines > MOST_FILE_LINES {
                problems.push(format!(
                    "{shown}: {lines} lines besides its tests (at most {MOST_FILE_LINES}): split it by what its parts do"
                ));
            }
            for (function, lines) in long_functions(&code_of(&text), MOST_FUNCTION_LINES) {
                problems.push(format!(
                    "{shown}: fn {function} spans {lines} lines (at most {MOST_FUNCTION_LINES}): give its steps functions of their own"
                ));
            }
        }
        if crate_lines > MOST_CRATE_LINES {
            problems.push(format!(
                "toolschema-{name}: {crate_lines} lines besides its tests (at most {MOST_CRATE_LINES}): a part of it is a crate of its own"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_long_function_is_found_and_a_declaration_is_not() {
    let body = "    let x = 1;\n".repeat(5);
    let code = format!(
        "trait T {{\n    fn declared(&self);\n}}\npub(crate) async fn long() {{\n{body}}}\nfn short() {{}}\n"
    );
    assert_eq!(long_functions(&code, 6), vec![("long".to_owned(), 7)]);
    assert!(long_functions(&code, 7).is_empty());
    assert_eq!(function_name("    pub(super) fn push("), Some("push"));
    assert_eq!(function_name("    let f = fn_pointer;"), None);
}
