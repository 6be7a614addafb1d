//! Text algorithms of toolschema that run both inside the derives (at macro
//! expansion) and in the runtime (during constant evaluation, or on
//! configuration errors), written once here:
//!
//! - [`doc`]: doc comments normalized as Markdown-aware text;
//! - [`suggest`]: the "did you mean" of every misspelt name;
//! - [`formats`]: the formats JSON Schema defines, the only ones advertised;
//! - [`shorten`]: text from outside cut short before it is echoed.
//!
//! Users never name this crate; `toolschema` uses it.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod doc;
pub mod formats;
pub mod shorten;
pub mod suggest;
