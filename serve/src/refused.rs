//! Why a tool call has no result, said once for every transport: a call's
//! error and a meta-tool's refusal become one [`Refused`], which the
//! protocol core writes as MCP (a JSON-RPC error, or a tool result with
//! `isError`) and the REST handler as an HTTP status with a JSON body. It
//! holds what it was made from, so that each transport writes only what
//! it says.

use core::fmt;

use toolschema_catalog::{MetaRefusal, MetaViolation};
use toolschema_runtime::call::{CallError, ToolError};
use toolschema_runtime::validate::ArgumentErrors;

/// Why a tool call has no result.
#[derive(Debug)]
pub(crate) enum Refused {
    /// No tool of that name that this client may call.
    UnknownTool {
        /// The name asked for.
        name: String,
    },
    /// Arguments whose JSON text no tree holds (a number beyond a 64-bit
    /// float): a malformed request.
    Unreadable {
        /// What the reader said.
        reason: String,
    },
    /// Arguments the tool's input schema refuses.
    InvalidArguments(Invalid),
    /// The tool ran and failed, with a message for the model.
    ToolFailed(ToolError),
    /// A defect of the server (a result that breaks its own output schema,
    /// a mapping that fails): nothing the client can mend.
    Defect {
        /// What went wrong, in exposed names.
        message: String,
    },
}

/// Arguments a schema refuses: a tool's, or a meta-tool's.
#[derive(Debug)]
pub(crate) enum Invalid {
    /// A tool's arguments, every violation found (up to the limit).
    Call(ArgumentErrors),
    /// A meta-tool's arguments.
    Meta(MetaRefusal),
}

/// One rule that arguments break, as REST lists it.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Broken<'a> {
    /// The JSON pointer of the argument.
    pub(crate) path: &'a str,
    /// The keyword broken (`required`, `maxLength`, ...).
    pub(crate) rule: &'static str,
    /// What is wrong and what to send instead.
    pub(crate) message: &'a str,
}

#[cfg_attr(not(feature = "http"), allow(dead_code))]
impl Invalid {
    /// The rules broken, one by one.
    pub(crate) fn broken(&self) -> Vec<Broken<'_>> {
        match self {
            Invalid::Call(errors) => errors
                .iter()
                .map(|violation| Broken {
                    path: violation.path(),
                    rule: violation.rule().keyword(),
                    message: violation.message(),
                })
                .collect(),
            Invalid::Meta(MetaRefusal::InvalidArguments(violations)) => violations
                .iter()
                .map(
                    |MetaViolation {
                         path,
                         rule,
                         message,
                     }| Broken {
                        path,
                        rule,
                        message,
                    },
                )
                .collect(),
            Invalid::Meta(_) => Vec::new(),
        }
    }

    /// How many more violations were found than listed.
    pub(crate) fn omitted(&self) -> usize {
        match self {
            Invalid::Call(errors) => errors.omitted(),
            Invalid::Meta(_) => 0,
        }
    }
}

/// Every rule broken, as one text.
impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::Call(errors) => errors.fmt(f),
            Invalid::Meta(refusal) => refusal.fmt(f),
        }
    }
}

impl Refused {
    /// What the REST answer says of an unknown tool (MCP says `Unknown
    /// tool: NAME`).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn unknown_tool(name: &str) -> String {
        CallError::UnknownTool {
            name: name.to_owned(),
        }
        .to_string()
    }
}

impl Refused {
    /// The refusal of a call of `tool`: an unknown tool is the one called,
    /// whatever name a tool's own work (a dynamic tool, a transport) put in
    /// its error.
    pub(crate) fn of_call(tool: &str, error: CallError) -> Refused {
        match error {
            CallError::UnknownTool { .. } => Refused::UnknownTool {
                name: tool.to_owned(),
            },
            CallError::InvalidArguments(errors) => Refused::InvalidArguments(Invalid::Call(errors)),
            CallError::Tool(failure) => Refused::ToolFailed(failure),
            defect => Refused::Defect {
                message: defect.to_string(),
            },
        }
    }
}

impl From<MetaRefusal> for Refused {
    fn from(refusal: MetaRefusal) -> Refused {
        match refusal {
            MetaRefusal::UnknownTool { name } => Refused::UnknownTool { name },
            MetaRefusal::Unreadable { reason } => Refused::Unreadable { reason },
            invalid @ MetaRefusal::InvalidArguments(_) => {
                Refused::InvalidArguments(Invalid::Meta(invalid))
            }
            // A refusal of the arguments this server does not know by
            // name yet: what the model can mend, with its sentence.
            other => Refused::InvalidArguments(Invalid::Meta(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use toolschema_catalog::{MetaRefusal, MetaViolation};
    use toolschema_runtime::call::{CallError, ToolError};

    use super::Refused;

    #[test]
    fn a_call_error_and_a_meta_refusal_become_the_same_refusal() {
        // The tool called is named, not what a tool's work put in its error.
        let unknown = Refused::of_call("x", CallError::UnknownTool { name: "y".into() });
        assert!(matches!(&unknown, Refused::UnknownTool { name } if name == "x"));
        let meta_unknown = Refused::from(MetaRefusal::UnknownTool { name: "x".into() });
        assert!(matches!(&meta_unknown, Refused::UnknownTool { name } if name == "x"));
        assert_eq!(Refused::unknown_tool("x"), "there is no tool named `x`");

        let failed = Refused::of_call("x", CallError::Tool(ToolError::new("out of stock")));
        assert!(matches!(&failed, Refused::ToolFailed(f) if f.message() == "out of stock"));

        let violation = MetaViolation {
            path: "/query".into(),
            rule: "required",
            message: "`query` is required".into(),
        };
        let invalid = Refused::from(MetaRefusal::InvalidArguments(vec![violation]));
        let Refused::InvalidArguments(invalid) = invalid else {
            panic!("{invalid:?}");
        };
        assert_eq!(
            invalid.to_string(),
            "the arguments break 1 rule:\n- `query` is required"
        );
        let broken = invalid.broken();
        assert_eq!(broken.len(), 1);
        assert_eq!(
            (broken[0].path, broken[0].rule, broken[0].message),
            ("/query", "required", "`query` is required")
        );
        assert_eq!(invalid.omitted(), 0);
    }
}
