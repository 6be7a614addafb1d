//! Tests of the derives over the example corpus.

#![allow(unreachable_pub, missing_docs)]

mod calls;
mod corpus;
mod projection;
mod roundtrip;
mod snapshots;
mod validity;
