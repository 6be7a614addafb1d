//! The README's and the guides' Rust blocks as doctests, in a crate of
//! their own: the published packages ship the text, and this crate (not
//! published) compiles and runs every block against the workspace, with
//! what the blocks use (the demo's tools, rmcp) as its own dependencies.

/// The README's and the guides' Rust blocks, compiled and run as doctests
/// so that what they show keeps working.
#[cfg(doctest)]
mod guides {
    #[doc = include_str!("../../../README.md")]
    struct Readme;
    #[doc = include_str!("../../../docs/tools.md")]
    struct Tools;
    #[doc = include_str!("../../../docs/catalog.md")]
    struct Catalog;
    #[doc = include_str!("../../../docs/gateway.md")]
    struct Gateway;
    #[doc = include_str!("../../../docs/store.md")]
    struct Store;
    #[doc = include_str!("../../../docs/identity.md")]
    struct Identity;
    #[doc = include_str!("../../../docs/telemetry.md")]
    struct Telemetry;
}
