//! The one walk of the schema graph.
//!
//! Links between types are function pointers, so a graph may contain
//! cycles (a type that contains itself). Every question asked of a whole
//! graph (which types recurse, whether any name is renamed, whether two
//! members share an exposed name) is a [`Visit`] of this walk, which enters
//! each derived type once and reports the cycles it closes.

use core::ops::ControlFlow;
use std::collections::HashSet;

use super::members::Direction;
use super::{Field, Node, Shape, TypeInfo};

/// What a walk does at each node.
pub trait Visit<'a> {
    /// Called once for each node reached; a derived type (object or enum)
    /// is reached once however many places refer to it. `Break` ends the
    /// walk.
    fn node(&mut self, node: &'a Node) -> ControlFlow<()>;

    /// A derived type reached again from inside itself: the graph recurses
    /// through it.
    fn cycle(&mut self, _type_name: &'a str) {}
}

/// The identity of a derived type, if `node` is one.
pub fn type_info(node: &Node) -> Option<&TypeInfo> {
    match node {
        Node::Object(object) => Some(&object.info),
        Node::Enum(enumeration) => Some(&enumeration.info),
        _ => None,
    }
}

/// Walks the graph from `root`, depth first, following the fields that take
/// part in `direction`.
pub fn walk<'a>(root: &'a Node, direction: Direction, visit: &mut impl Visit<'a>) {
    let mut walk = Walk {
        direction,
        on_path: Vec::new(),
        done: Entered::default(),
    };
    let _ = walk.enter(root, visit);
}

struct Walk<'a> {
    direction: Direction,
    /// The derived types being walked, outermost first.
    on_path: Vec<&'a str>,
    /// The derived types already entered.
    done: Entered<'a>,
}

/// Names of the derived types entered: looked through while they are few
/// (most tools have a handful of types), hashed once they are many.
#[derive(Default)]
struct Entered<'a> {
    few: Vec<&'a str>,
    many: HashSet<&'a str>,
}

impl<'a> Entered<'a> {
    const FEW: usize = 16;

    /// Adds `name`; whether it was not entered before.
    fn insert(&mut self, name: &'a str) -> bool {
        if self.many.is_empty() {
            if self.few.contains(&name) {
                return false;
            }
            if self.few.len() < Self::FEW {
                self.few.push(name);
                return true;
            }
            self.many.extend(self.few.drain(..));
        }
        self.many.insert(name)
    }
}

impl<'a> Walk<'a> {
    fn enter(&mut self, node: &'a Node, visit: &mut impl Visit<'a>) -> ControlFlow<()> {
        let Some(info) = type_info(node) else {
            visit.node(node)?;
            return self.children(node, visit);
        };
        let name: &'a str = &info.type_name;
        if self.on_path.contains(&name) {
            visit.cycle(name);
            return ControlFlow::Continue(());
        }
        if !self.done.insert(name) {
            return ControlFlow::Continue(());
        }
        visit.node(node)?;
        self.on_path.push(name);
        let flow = self.children(node, visit);
        self.on_path.pop();
        flow
    }

    fn fields(&mut self, fields: &'a [Field], visit: &mut impl Visit<'a>) -> ControlFlow<()> {
        let direction = self.direction;
        for field in fields.iter().filter(|f| direction.includes(f)) {
            self.enter(&field.schema, visit)?;
        }
        ControlFlow::Continue(())
    }

    /// Enters the nodes `node` links to directly.
    fn children(&mut self, node: &'a Node, visit: &mut impl Visit<'a>) -> ControlFlow<()> {
        match node {
            Node::Optional(inner) => self.enter(inner, visit),
            Node::Array(array) => self.enter(&array.items, visit),
            Node::Map(map) => self.enter(&map.values, visit),
            Node::Tuple(items) | Node::AnyOf(items) => {
                items.iter().try_for_each(|item| self.enter(item, visit))
            }
            Node::Object(object) => self.fields(&object.fields, visit),
            Node::Enum(enumeration) => {
                enumeration
                    .variants
                    .iter()
                    .try_for_each(|variant| match &variant.shape {
                        Shape::Unit => ControlFlow::Continue(()),
                        Shape::Newtype(payload) => self.enter(payload, visit),
                        Shape::Tuple(items) => {
                            items.iter().try_for_each(|item| self.enter(item, visit))
                        }
                        Shape::Struct(fields) => self.fields(fields, visit),
                    })
            }
            Node::Any
            | Node::Raw(_)
            | Node::Null
            | Node::Boolean
            | Node::Integer(_)
            | Node::Number(_)
            | Node::String(_) => ControlFlow::Continue(()),
        }
    }
}

/// The derived types that contain themselves, by type name: those a
/// rendering writes once under `$defs` and refers to with `$ref`.
pub fn recursive_types(root: &Node, direction: Direction) -> HashSet<&str> {
    struct Cycles<'a>(HashSet<&'a str>);
    impl<'a> Visit<'a> for Cycles<'a> {
        fn node(&mut self, _: &'a Node) -> ControlFlow<()> {
            ControlFlow::Continue(())
        }
        fn cycle(&mut self, type_name: &'a str) {
            self.0.insert(type_name);
        }
    }
    let mut cycles = Cycles(HashSet::new());
    walk(root, direction, &mut cycles);
    cycles.0
}

/// The field lists of a node: an object's, or those of an enum's struct
/// variants.
pub fn field_lists(node: &Node) -> impl Iterator<Item = &[Field]> {
    let (object, variants) = match node {
        Node::Object(object) => (Some(&*object.fields), &[][..]),
        Node::Enum(enumeration) => (None, &*enumeration.variants),
        _ => (None, &[][..]),
    };
    object
        .into_iter()
        .chain(variants.iter().filter_map(|v| match &v.shape {
            Shape::Struct(fields) => Some(&**fields),
            _ => None,
        }))
}

/// Whether any field reachable from `root` in `direction` has an exposed
/// name that differs from its source name (so that values need renaming at
/// all).
pub fn has_renames(root: &Node, direction: Direction) -> bool {
    struct Renames(bool);
    impl Visit<'_> for Renames {
        fn node(&mut self, node: &Node) -> ControlFlow<()> {
            if field_lists(node).flatten().any(|f| f.exposed != f.source) {
                self.0 = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
    }
    let mut renames = Renames(false);
    walk(root, direction, &mut renames);
    renames.0
}

/// Two members of one object exposed under the same name, which the JSON
/// object could not hold apart: `(the type's name, the property)`. Found
/// through flattening at any depth, in one direction.
pub fn duplicate_property(root: &Node, direction: Direction) -> Option<(&str, &str)> {
    struct Duplicates<'a> {
        direction: Direction,
        found: Option<(&'a str, &'a str)>,
    }
    impl<'a> Visit<'a> for Duplicates<'a> {
        fn node(&mut self, node: &'a Node) -> ControlFlow<()> {
            let Some(info) = type_info(node) else {
                return ControlFlow::Continue(());
            };
            for fields in field_lists(node) {
                let members = super::members::members(fields, self.direction);
                let exposed = members.iter().map(|member| &*member.field.exposed);
                if let Some(twice) = first_repeated(exposed, members.len()) {
                    self.found = Some((&info.name, twice));
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut duplicates = Duplicates {
        direction,
        found: None,
    };
    walk(root, direction, &mut duplicates);
    duplicates.found
}

/// The first of `len` names that one before it already is: compared
/// pairwise when they are few (most objects have a handful of members),
/// hashed when they are many (an object may have thousands).
fn first_repeated<'a>(names: impl Iterator<Item = &'a str> + Clone, len: usize) -> Option<&'a str> {
    if len <= Entered::FEW {
        return names
            .clone()
            .enumerate()
            .find(|(i, name)| names.clone().take(*i).any(|before| before == *name))
            .map(|(_, name)| name);
    }
    let mut seen = HashSet::with_capacity(len);
    names.into_iter().find(|name| !seen.insert(*name))
}

/// Whether a hand-written schema ([`Node::Raw`]) with a `$ref` sits below
/// `root`: one stands only at a tool's input root, where its own `$ref`s
/// resolve (a schema that stands alone may stand anywhere).
pub fn has_nested_raw(root: &Node, direction: Direction) -> bool {
    struct Nested<'a> {
        root: &'a Node,
        found: bool,
    }
    impl<'a> Visit<'a> for Nested<'a> {
        fn node(&mut self, node: &'a Node) -> ControlFlow<()> {
            if matches!(node, Node::Raw(text) if text.contains("\"$ref\""))
                && !core::ptr::eq(node, self.root)
            {
                self.found = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
    }
    let mut nested = Nested { root, found: false };
    walk(root, direction, &mut nested);
    nested.found
}

#[cfg(test)]
mod tests {
    use super::{Entered, first_repeated};

    #[test]
    fn a_type_is_entered_once_among_few_and_many() {
        let names: Vec<String> = (0..40).map(|i| format!("T{i}")).collect();
        let mut entered = Entered::default();
        for (i, name) in names.iter().enumerate() {
            assert!(entered.insert(name), "{name} first");
            // Every name so far, whether looked through or hashed.
            assert!(
                names[..=i].iter().all(|before| !entered.insert(before)),
                "after {name}"
            );
        }
    }

    #[test]
    fn the_first_name_seen_before_is_found_among_few_and_many() {
        for len in [0, 1, 2, 16, 17, 1_000] {
            let names: Vec<String> = (0..len).map(|i| format!("n{i}")).collect();
            let all = || names.iter().map(String::as_str);
            assert_eq!(first_repeated(all(), len), None, "{len} distinct");
            if len < 2 {
                continue;
            }
            // `n1` again at the end, and the last name again after it:
            // `n1` is the first seen twice.
            let mut repeated = names.clone();
            repeated.push("n1".to_owned());
            repeated.push(names[len - 1].clone());
            let found = first_repeated(repeated.iter().map(String::as_str), len + 2);
            assert_eq!(found, Some("n1"), "{len} and two repeated");
        }
    }
}
