//! Names an import writes: tool names and exposed field names cased from
//! the document's own, cut to fit, and numbered where two read alike.

use std::collections::BTreeSet;

use super::context::Found;

/// `name` cut to at most `limit` bytes, keeping it unique: a longer name
/// keeps its start and ends with eight hex digits of a hash of the whole.
pub(super) fn fit(name: &str, limit: usize) -> String {
    if name.len() <= limit {
        return name.to_owned();
    }
    // FNV-1a: stable across runs and platforms.
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut cut = limit - 9;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let stem = name[..cut].trim_end_matches(['-', '_']);
    format!("{stem}_{:08x}", hash as u32)
}

/// `name` with a number: `job_id_2`, `items[].id_2`.
pub(super) fn numbered(name: &str, n: usize) -> String {
    match name.strip_suffix("[]") {
        Some(stem) => format!("{stem}_{n}[]"),
        None => format!("{name}_{n}"),
    }
}

/// The first name of an exposed path (`lines` of `lines[].code`).
pub(super) fn root(exposed: &str) -> &str {
    let end = exposed.find(['.', '[']).unwrap_or(exposed.len());
    &exposed[..end]
}

/// `prefix.name`, or `name` alone at the top.
pub(super) fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}

/// `petId` → `pet_id`, `api_key` stays, `X-Rate` → `x_rate`.
pub(super) fn snake(name: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            previous_lower = false;
        }
    }
    out.trim_end_matches('_').to_owned()
}

/// `getPetById` → `get-pet-by-id`.
pub(super) fn kebab(name: &str) -> String {
    snake(name).replace('_', "-")
}

/// Makes the exposed names of a tool's arguments unique: a later clash
/// takes its location's name as a prefix, and a number if that is taken
/// too.
pub(super) fn unique_arguments(arguments: &mut [Found]) {
    let mut taken = BTreeSet::new();
    for field in arguments {
        if taken.insert(field.exposed.clone()) {
            continue;
        }
        let base = match field.location {
            Some(location) => format!("{location}_{}", field.exposed),
            None => field.exposed.clone(),
        };
        field.exposed = base.clone();
        let mut n = 1;
        while !taken.insert(field.exposed.clone()) {
            n += 1;
            field.exposed = numbered(&base, n);
        }
    }
}

/// Makes the exposed names of a tool's results unique (`jobId` and
/// `job_id` both read `job_id`): a later one is numbered.
pub(super) fn unique_results(results: &mut [Found]) {
    let mut taken = BTreeSet::new();
    for field in results {
        let base = field.exposed.clone();
        let mut n = 1;
        while !taken.insert(field.exposed.clone()) {
            n += 1;
            field.exposed = numbered(&base, n);
        }
    }
}
