//! The operators of the admin API: their keys and what a console session
//! checks of them.

#[allow(unused_imports)]
use crate::Store;
