//! The one list of the publish workflow's actions: each one's name, what
//! it does, and its arguments. The CLI's `admin` subcommands are made from
//! it, the admin API's routes are registered from it, and the audit trail
//! names an action by it; an action missing from one of them does not
//! compile.

use crate::action::Action;
use crate::records::{Body, Kind, Records};

/// An action of the publish workflow, without its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ActionKind {
    /// [`Action::Draft`].
    Draft,
    /// [`Action::Propose`].
    Propose,
    /// [`Action::Publish`].
    Publish,
    /// [`Action::Deprecate`].
    Deprecate,
    /// [`Action::Activate`].
    Activate,
    /// [`Action::Deactivate`].
    Deactivate,
    /// [`Action::Assign`].
    Assign,
    /// [`Action::Unassign`].
    Unassign,
    /// [`Action::RotateKey`].
    RotateKey,
    /// [`Action::Put`].
    Put,
    /// [`Action::Delete`].
    Delete,
    /// [`Action::Setting`].
    Setting,
    /// [`Action::Replace`].
    Replace,
    /// [`Action::Import`].
    Import,
}

/// One argument of an action: the CLI's argument (or `--name` option, for
/// fields), the admin API's path parameter or body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Argument {
    /// Its name.
    pub name: &'static str,
    /// What it is, in a sentence.
    pub help: &'static str,
    /// What it holds.
    pub shape: Shape,
}

/// What an argument holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shape {
    /// A name or identifier.
    Name,
    /// A name that may be left out.
    OptionalName,
    /// A version number.
    Number,
    /// A record kind (`tenant`, `client`, `toolset`, `downstream`,
    /// `gateway_tool`).
    Kind,
    /// A record's or a version's fields, as a JSON object (the CLI reads
    /// it from a file: a JSON object or a TOML table).
    Fields {
        /// Whether it must be given.
        required: bool,
    },
    /// A configuration file, checked whole against the registered tools.
    Configuration,
    /// A file of downstreams and configured tools to add beside the rest.
    Additions,
}

/// An argument's value, as a front end read it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Given {
    /// A name, an identifier or a record kind.
    Text(String),
    /// A version number.
    Number(u32),
    /// Fields.
    Fields(Body),
    /// A configuration's records.
    Records(Box<Records>),
}

const fn arg(name: &'static str, help: &'static str, shape: Shape) -> Argument {
    Argument { name, help, shape }
}

const TOOL: Argument = arg("tool", "The tool's exposed name.", Shape::Name);
const VERSION: Argument = arg("version", "The version's number.", Shape::Number);
const TOOLSET: Argument = arg("toolset", "The toolset.", Shape::Name);
const CLIENT: Argument = arg("client", "The client application.", Shape::Name);
const KIND: Argument = arg(
    "kind",
    "The record's kind: tenant, client, toolset, downstream or gateway_tool.",
    Shape::Kind,
);
const ID: Argument = arg("id", "The record's identifier.", Shape::Name);
const SETTING: Argument = arg(
    "name",
    "The setting: catalog, server or authorization.",
    Shape::Name,
);

impl ActionKind {
    /// Every action, in the order the CLI lists them.
    pub const ALL: [ActionKind; 14] = [
        ActionKind::Draft,
        ActionKind::Propose,
        ActionKind::Publish,
        ActionKind::Deprecate,
        ActionKind::Activate,
        ActionKind::Deactivate,
        ActionKind::Assign,
        ActionKind::Unassign,
        ActionKind::RotateKey,
        ActionKind::Put,
        ActionKind::Delete,
        ActionKind::Setting,
        ActionKind::Replace,
        ActionKind::Import,
    ];

    /// Its name: in the audit trail (`rotate_key`), and, with `-` for
    /// `_`, the CLI's subcommand (`rotate-key`).
    ///
    /// ```
    /// use toolschema_store::ActionKind;
    ///
    /// assert_eq!(ActionKind::RotateKey.name(), "rotate_key");
    /// assert_eq!(ActionKind::from_name("rotate-key"), Some(ActionKind::RotateKey));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ActionKind::Draft => "draft",
            ActionKind::Propose => "propose",
            ActionKind::Publish => "publish",
            ActionKind::Deprecate => "deprecate",
            ActionKind::Activate => "activate",
            ActionKind::Deactivate => "deactivate",
            ActionKind::Assign => "assign",
            ActionKind::Unassign => "unassign",
            ActionKind::RotateKey => "rotate_key",
            ActionKind::Put => "put",
            ActionKind::Delete => "delete",
            ActionKind::Setting => "setting",
            ActionKind::Replace => "replace",
            ActionKind::Import => "import",
        }
    }

    /// The action named `name` (`_` or `-` between words).
    pub fn from_name(name: &str) -> Option<ActionKind> {
        let name = name.replace('-', "_");
        ActionKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// What it does, in a sentence.
    pub fn summary(self) -> &'static str {
        match self {
            ActionKind::Draft => "Add a draft version of a tool's mapping.",
            ActionKind::Propose => "Put a draft version up for review.",
            ActionKind::Publish => {
                "Serve a version (the highest published one is served); a version that may break the clients of the one served is refused with the report, unless the report is accepted."
            }
            ActionKind::Deprecate => {
                "Withdraw a version (as the highest version, it hides the tool)."
            }
            ActionKind::Activate => "Switch a toolset on.",
            ActionKind::Deactivate => "Switch a toolset off.",
            ActionKind::Assign => "Give a client application a toolset of its tenant.",
            ActionKind::Unassign => "Take a toolset from a client application.",
            ActionKind::RotateKey => {
                "Give a client application a new API key, replacing its keys; the key is shown once."
            }
            ActionKind::Put => "Create or replace a record whole.",
            ActionKind::Delete => "Remove a record.",
            ActionKind::Setting => "Set a setting, or remove it when no fields are given.",
            ActionKind::Replace => {
                "Replace the whole configuration with a configuration file's (checked first)."
            }
            ActionKind::Import => {
                "Add downstreams and configured tools (what `toolschema import` writes), every version a draft."
            }
        }
    }

    /// Its arguments, in order.
    pub fn arguments(self) -> &'static [Argument] {
        const DRAFT: [Argument; 4] = [
            TOOL,
            VERSION,
            arg(
                "definition",
                "A configured tool's version: its fields (description, method, path, argument, result, ...).",
                Shape::Fields { required: false },
            ),
            arg(
                "downstream",
                "For the first version of a new tool from configuration: the downstream it calls.",
                Shape::OptionalName,
            ),
        ];
        const PUT: [Argument; 3] = [
            KIND,
            ID,
            arg(
                "body",
                "The record's fields other than its identifier, as the configuration file has them.",
                Shape::Fields { required: true },
            ),
        ];
        const SETTING_FIELDS: [Argument; 2] = [
            SETTING,
            arg(
                "body",
                "The setting's fields; none removes it.",
                Shape::Fields { required: false },
            ),
        ];
        const REPLACE: [Argument; 1] = [arg(
            "file",
            "The catalog configuration (TOML).",
            Shape::Configuration,
        )];
        const IMPORT: [Argument; 1] = [arg(
            "file",
            "The downstreams and configured tools to add (TOML).",
            Shape::Additions,
        )];
        match self {
            ActionKind::Draft => &DRAFT,
            ActionKind::Propose | ActionKind::Publish | ActionKind::Deprecate => &[TOOL, VERSION],
            ActionKind::Activate | ActionKind::Deactivate => &[TOOLSET],
            ActionKind::Assign | ActionKind::Unassign => &[CLIENT, TOOLSET],
            ActionKind::RotateKey => &[CLIENT],
            ActionKind::Put => &PUT,
            ActionKind::Delete => &[KIND, ID],
            ActionKind::Setting => &SETTING_FIELDS,
            ActionKind::Replace => &REPLACE,
            ActionKind::Import => &IMPORT,
        }
    }
}

impl Action {
    /// What kind of action this is.
    pub fn kind(&self) -> ActionKind {
        match self {
            Action::Draft { .. } => ActionKind::Draft,
            Action::Propose { .. } => ActionKind::Propose,
            Action::Publish { .. } => ActionKind::Publish,
            Action::Deprecate { .. } => ActionKind::Deprecate,
            Action::Activate { .. } => ActionKind::Activate,
            Action::Deactivate { .. } => ActionKind::Deactivate,
            Action::Assign { .. } => ActionKind::Assign,
            Action::Unassign { .. } => ActionKind::Unassign,
            Action::RotateKey { .. } => ActionKind::RotateKey,
            Action::Put { .. } => ActionKind::Put,
            Action::Delete { .. } => ActionKind::Delete,
            Action::Setting { .. } => ActionKind::Setting,
            Action::Replace { .. } => ActionKind::Replace,
            Action::Import { .. } => ActionKind::Import,
        }
    }

    /// The action of `kind` made from its [arguments](ActionKind::arguments),
    /// each read by `given` (`None` for one not given); an argument missing
    /// or of another shape is named.
    ///
    /// ```
    /// use toolschema_store::{Action, ActionKind, Given};
    ///
    /// let action = Action::from_arguments(ActionKind::Publish, |argument| {
    ///     Ok(match argument.name {
    ///         "tool" => Some(Given::Text("billing.refund".into())),
    ///         "version" => Some(Given::Number(2)),
    ///         _ => None,
    ///     })
    /// })
    /// .unwrap();
    /// assert_eq!(action, Action::Publish { tool: "billing.refund".into(), version: 2 });
    /// let missing = Action::from_arguments(ActionKind::Publish, |_| Ok(None)).unwrap_err();
    /// assert_eq!(missing, "publish: give `tool` (The tool's exposed name.)");
    /// ```
    pub fn from_arguments(
        kind: ActionKind,
        mut given: impl FnMut(&Argument) -> Result<Option<Given>, String>,
    ) -> Result<Action, String> {
        let mut values = Vec::with_capacity(kind.arguments().len());
        for argument in kind.arguments() {
            let value = given(argument)?;
            let required = !matches!(
                argument.shape,
                Shape::OptionalName | Shape::Fields { required: false }
            );
            if value.is_none() && required {
                return Err(format!(
                    "{}: give `{}` ({})",
                    kind.name(),
                    argument.name,
                    argument.help
                ));
            }
            values.push((argument, value));
        }
        let mut values = Values {
            kind,
            items: values.into_iter(),
        };
        Ok(match kind {
            ActionKind::Draft => Action::Draft {
                tool: values.text()?,
                version: values.number()?,
                definition: values.fields()?,
                downstream: values.optional_text()?,
            },
            ActionKind::Propose => Action::Propose {
                tool: values.text()?,
                version: values.number()?,
            },
            ActionKind::Publish => Action::Publish {
                tool: values.text()?,
                version: values.number()?,
            },
            ActionKind::Deprecate => Action::Deprecate {
                tool: values.text()?,
                version: values.number()?,
            },
            ActionKind::Activate => Action::Activate {
                toolset: values.text()?,
            },
            ActionKind::Deactivate => Action::Deactivate {
                toolset: values.text()?,
            },
            ActionKind::Assign => Action::Assign {
                client: values.text()?,
                toolset: values.text()?,
            },
            ActionKind::Unassign => Action::Unassign {
                client: values.text()?,
                toolset: values.text()?,
            },
            ActionKind::RotateKey => Action::RotateKey {
                client: values.text()?,
            },
            ActionKind::Put => Action::Put {
                kind: values.record_kind()?,
                id: values.text()?,
                body: values.fields()?.unwrap_or_default(),
            },
            ActionKind::Delete => Action::Delete {
                kind: values.record_kind()?,
                id: values.text()?,
            },
            ActionKind::Setting => Action::Setting {
                name: values.text()?,
                body: values.fields()?,
            },
            ActionKind::Replace => Action::Replace {
                records: values.records()?,
            },
            ActionKind::Import => Action::Import {
                records: values.records()?,
            },
        })
    }
}

/// An action's arguments as given, read in order.
struct Values {
    kind: ActionKind,
    items: std::vec::IntoIter<(&'static Argument, Option<Given>)>,
}

impl Values {
    fn next(&mut self) -> Result<(&'static Argument, Option<Given>), String> {
        self.items
            .next()
            .ok_or_else(|| format!("{}: an argument is missing", self.kind.name()))
    }

    fn wrong(&self, argument: &Argument) -> String {
        format!(
            "{}: `{}` is not what it takes: {}",
            self.kind.name(),
            argument.name,
            argument.help
        )
    }

    fn optional_text(&mut self) -> Result<Option<String>, String> {
        match self.next()? {
            (_, Some(Given::Text(text))) => Ok(Some(text)),
            (_, None) => Ok(None),
            (argument, Some(_)) => Err(self.wrong(argument)),
        }
    }

    fn text(&mut self) -> Result<String, String> {
        let kind = self.kind;
        self.optional_text()?
            .ok_or_else(|| format!("{}: an argument is missing", kind.name()))
    }

    fn number(&mut self) -> Result<u32, String> {
        match self.next()? {
            (_, Some(Given::Number(number))) => Ok(number),
            (argument, _) => Err(self.wrong(argument)),
        }
    }

    fn fields(&mut self) -> Result<Option<Body>, String> {
        match self.next()? {
            (_, Some(Given::Fields(body))) => Ok(Some(body)),
            (_, None) => Ok(None),
            (argument, Some(_)) => Err(self.wrong(argument)),
        }
    }

    fn record_kind(&mut self) -> Result<Kind, String> {
        let name = self.text()?;
        Kind::from_name(&name).ok_or_else(|| {
            format!(
                "{}: `{name}` is not a record kind; use tenant, client, toolset, downstream or gateway_tool",
                self.kind.name()
            )
        })
    }

    fn records(&mut self) -> Result<Box<Records>, String> {
        match self.next()? {
            (_, Some(Given::Records(records))) => Ok(records),
            (argument, _) => Err(self.wrong(argument)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_is_named_once_and_found_by_its_name() {
        let mut names: Vec<&str> = ActionKind::ALL.iter().map(|kind| kind.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ActionKind::ALL.len(), "{names:?}");
        for kind in ActionKind::ALL {
            assert_eq!(ActionKind::from_name(kind.name()), Some(kind));
            assert_eq!(
                ActionKind::from_name(&kind.name().replace('_', "-")),
                Some(kind)
            );
            assert!(kind.summary().ends_with('.'), "{kind:?}");
        }
        assert_eq!(ActionKind::from_name("publish-all"), None);
    }

    #[test]
    fn an_argument_of_another_shape_is_named() {
        let error = Action::from_arguments(ActionKind::Publish, |argument| {
            Ok(Some(match argument.shape {
                Shape::Number => Given::Text("two".into()),
                _ => Given::Text("billing.refund".into()),
            }))
        })
        .expect_err("a version is a number");
        assert_eq!(
            error,
            "publish: `version` is not what it takes: The version's number."
        );
        // Optional arguments may be left out; what an action is made of
        // is what its arguments give.
        let draft = Action::from_arguments(ActionKind::Draft, |argument| {
            Ok(match argument.shape {
                Shape::Name => Some(Given::Text("crm.lookup".into())),
                Shape::Number => Some(Given::Number(1)),
                _ => None,
            })
        })
        .expect("a draft of a derived tool");
        assert_eq!(
            draft,
            Action::Draft {
                tool: "crm.lookup".into(),
                version: 1,
                definition: None,
                downstream: None,
            }
        );
        assert_eq!(draft.kind(), ActionKind::Draft);
        assert_eq!(draft.name(), "draft");
    }
}
