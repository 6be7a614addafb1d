//! The derives' compile-time rules, tested by `tests/ui.rs`: one case per
//! mistake under `tests/ui/<rule>/`, each with the error a user sees.
