//! Why a tool call has no result, said once for every transport: a call's
//! error and a meta-tool's refusal become one [`Refused`], which the
//! protocol core writes as MCP (a JSON-RPC error, or a tool result with
//! `isError`) and the REST handler as an HTTP status with a JSON body.

use toolschema_catalog::MetaRefusal;
use toolschema_runtime::call::CallError;

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
    InvalidArguments {
        /// Every rule broken, as one text.
        summary: String,
        /// The rules broken, one by one (REST lists them; MCP's text has
        /// them all).
        #[cfg_attr(not(feature = "http"), allow(dead_code))]
        violations: Vec<Broken>,
        /// How many more were found than listed.
        #[cfg_attr(not(feature = "http"), allow(dead_code))]
        omitted: usize,
    },
    /// The tool ran and failed, with a message for the model.
    ToolFailed {
        /// The tool's message.
        message: String,
    },
    /// A defect of the server (a result that breaks its own output schema,
    /// a mapping that fails): nothing the client can mend.
    Defect {
        /// What went wrong, in exposed names.
        message: String,
    },
}

/// One rule that arguments break.
#[derive(Debug)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Broken {
    /// The JSON pointer of the argument.
    pub(crate) path: String,
    /// The keyword broken (`required`, `maxLength`, ...).
    pub(crate) rule: &'static str,
    /// What is wrong and what to send instead.
    pub(crate) message: String,
}

impl Refused {
    /// What the REST answer and the server's own words say of an unknown
    /// tool (MCP says `Unknown tool: NAME`).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn unknown_tool(name: &str) -> String {
        CallError::UnknownTool {
            name: name.to_owned(),
        }
        .to_string()
    }
}

impl From<CallError> for Refused {
    fn from(error: CallError) -> Refused {
        match error {
            CallError::UnknownTool { name } => Refused::UnknownTool { name },
            CallError::InvalidArguments(errors) => Refused::InvalidArguments {
                summary: errors.to_string(),
                violations: errors
                    .iter()
                    .map(|violation| Broken {
                        path: violation.path().to_owned(),
                        rule: violation.rule().keyword(),
                        message: violation.message().to_owned(),
                    })
                    .collect(),
                omitted: errors.omitted(),
            },
            CallError::Tool(failure) => Refused::ToolFailed {
                message: failure.message().to_owned(),
            },
            defect => Refused::Defect {
                message: defect.to_string(),
            },
        }
    }
}

impl From<MetaRefusal> for Refused {
    fn from(refusal: MetaRefusal) -> Refused {
        let summary = refusal.to_string();
        match refusal {
            MetaRefusal::UnknownTool { name } => Refused::UnknownTool { name },
            MetaRefusal::Unreadable { reason } => Refused::Unreadable { reason },
            MetaRefusal::InvalidArguments(violations) => Refused::InvalidArguments {
                summary,
                violations: violations
                    .into_iter()
                    .map(|violation| Broken {
                        path: violation.path,
                        rule: violation.rule,
                        message: violation.message,
                    })
                    .collect(),
                omitted: 0,
            },
            // A refusal this server does not know yet is its own defect.
            _ => Refused::Defect { message: summary },
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
        let unknown = Refused::from(CallError::UnknownTool { name: "x".into() });
        assert!(matches!(&unknown, Refused::UnknownTool { name } if name == "x"));
        let meta_unknown = Refused::from(MetaRefusal::UnknownTool { name: "x".into() });
        assert!(matches!(&meta_unknown, Refused::UnknownTool { name } if name == "x"));
        assert_eq!(Refused::unknown_tool("x"), "there is no tool named `x`");

        let failed = Refused::from(CallError::Tool(ToolError::new("out of stock")));
        assert!(matches!(&failed, Refused::ToolFailed { message } if message == "out of stock"));

        let violation = MetaViolation {
            path: "/query".into(),
            rule: "required",
            message: "`query` is required".into(),
        };
        let invalid = Refused::from(MetaRefusal::InvalidArguments(vec![violation]));
        match invalid {
            Refused::InvalidArguments {
                summary,
                violations,
                omitted,
            } => {
                assert_eq!(
                    summary,
                    "the arguments break 1 rule:\n- `query` is required"
                );
                assert_eq!(violations.len(), 1);
                assert_eq!(
                    (violations[0].path.as_str(), violations[0].rule),
                    ("/query", "required")
                );
                assert_eq!(omitted, 0);
            }
            other => panic!("{other:?}"),
        }
    }
}
