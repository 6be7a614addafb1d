//! What the checks compile a version's mapping into, beside its types:
//! path templates parsed, and the arrays that values go through.

use super::{FieldPath, PathPart};

/// The arrays two paths go through together, as pairs of the paths up to
/// each: where items of objects in one become items of objects in the
/// other. Computed once per operation.
pub fn container_pairs<'a>(
    pairs: impl Iterator<Item = (&'a FieldPath, &'a FieldPath)>,
) -> Vec<(FieldPath, FieldPath)> {
    let mut out: Vec<(FieldPath, FieldPath)> = Vec::new();
    for (from, to) in pairs {
        for n in 1..=from.arrays().min(to.arrays()) {
            let pair = (from.through_array(n), to.through_array(n));
            // Only where the target's items are objects (`lines[].code`),
            // not values themselves (`tags[]`).
            if pair.1 != *to && !out.contains(&pair) {
                out.push(pair);
            }
        }
    }
    out
}

/// [`container_pairs`], and the objects two paths of as many steps go
/// through together (`sku` of `sku.id` and `SKU` of `SKU.Id`): a body's
/// containers, so that an object given, even empty (`"sku": {}`, all of
/// whose fields are optional), is sent as an object rather than dropped.
pub fn body_container_pairs<'a>(
    pairs: impl Iterator<Item = (&'a FieldPath, &'a FieldPath)> + Clone,
) -> Vec<(FieldPath, FieldPath)> {
    let mut out = container_pairs(pairs.clone());
    for (from, to) in pairs {
        let (outer, inner) = (from.steps(), to.steps());
        if outer.len() != inner.len() {
            continue;
        }
        for len in 1..outer.len() {
            let aligned = outer[..len]
                .iter()
                .zip(&inner[..len])
                .all(|(a, b)| a.each == b.each && !a.name.is_empty() && !b.name.is_empty());
            if !aligned || outer[len - 1].each {
                continue;
            }
            let pair = (from.prefix(len), to.prefix(len));
            if !out.contains(&pair) {
                out.push(pair);
            }
        }
    }
    out
}

/// What in a path template's text would not reach the downstream as
/// written: a query or fragment, a backslash (a separator to some
/// servers), a control character, or a `.`/`..` segment (resolved away by
/// URL rules, plainly or percent-encoded).
pub fn template_problem(template: &str) -> Option<String> {
    if let Some(c) = template
        .chars()
        .find(|c| matches!(c, '?' | '#' | '\\') || c.is_control())
    {
        return Some(format!(
            "the path template holds {}; a path is segments between slashes, and query parameters are arguments `in = \"query\"`",
            match c {
                '?' => "`?`".to_owned(),
                '#' => "`#`".to_owned(),
                '\\' => "a backslash".to_owned(),
                c => format!("the control character U+{:04X}", u32::from(c)),
            }
        ));
    }
    let dots = template.split('/').find(|segment| {
        let plain = segment.to_ascii_lowercase().replace("%2e", ".");
        plain == "." || plain == ".."
    })?;
    Some(format!(
        "the path template has the segment `{dots}`, which URL rules resolve away; write the path the downstream serves"
    ))
}

/// The pieces of a path template, or the variable that is malformed.
pub fn parse_template(template: &str) -> Result<Vec<PathPart>, String> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return Err(format!("`{{` at {open} is not closed"));
        };
        if open > 0 {
            parts.push(PathPart::Literal(rest[..open].to_owned()));
        }
        let name = &rest[open + 1..open + close];
        if name.is_empty() || name.contains(['{', '/']) {
            return Err(format!("`{{{name}}}` is not a variable name"));
        }
        parts.push(PathPart::Variable(name.to_owned()));
        rest = &rest[open + close + 1..];
    }
    if rest.contains('}') {
        return Err("a `}` has no `{`".to_owned());
    }
    if !rest.is_empty() {
        parts.push(PathPart::Literal(rest.to_owned()));
    }
    Ok(parts)
}
