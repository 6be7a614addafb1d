//! Tests of the derives over the example corpus.

#![allow(unreachable_pub, missing_docs)]

mod calls;
mod corpus;
mod names;
mod profiles;
mod projection;
mod properties;
mod roundtrip;
mod snapshots;
mod validity;
