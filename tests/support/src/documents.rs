//! The command lines the README and the guides show, for the tests that
//! hold them to the programs that read them.

use std::path::{Path, PathBuf};

/// The README and the guides under `docs/`, in that order.
pub fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = vec![root.join("README.md")];
    let mut guides: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    guides.sort();
    out.extend(guides);
    out
}

/// The command lines of code blocks, continuations (`\`) joined: every
/// line of shell blocks, and the `$ ` lines of others (a session shown with
/// its output).
pub fn code_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<&str> = None;
    let mut pending = String::new();
    for line in text.lines() {
        if let Some(fence) = line.trim_start().strip_prefix("```") {
            block = match block {
                None => Some(fence.trim()),
                Some(_) => None,
            };
            continue;
        }
        let shell = match block {
            None => continue,
            Some("sh" | "bash" | "console" | "shell") => true,
            Some(_) => false,
        };
        if !shell && !line.starts_with("$ ") && pending.is_empty() {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(line);
                out.push(std::mem::take(&mut pending));
            }
        }
    }
    out
}

/// Shell words, quotes removed, up to a comment or `&`.
pub fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, '#') if !started => break,
            (None, '&') => break,
            (None, c) if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

/// The words after the program in a line that runs `program` (a binary on
/// the path, with environment assignments before it), or the arguments
/// after `--` of a `cargo run` line that names `target` (`toolschema-cli`,
/// `--example stateful`'s `stateful`).
pub fn invocation(line: &str, program: &str, target: &str) -> Option<Vec<String>> {
    let line = line.trim_start().trim_start_matches("$ ");
    let mut words = words(line).into_iter().skip_while(|word| {
        word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        })
    });
    let first = words.next()?;
    if first == program {
        return Some(words.collect());
    }
    if first != "cargo" {
        return None;
    }
    let rest: Vec<String> = words.collect();
    let at = rest.iter().position(|word| word == "--")?;
    rest[..at]
        .iter()
        .any(|word| word == target)
        .then(|| rest[at + 1..].to_vec())
}
