-- What each tool's clients were served last: its version and, for a tool
-- from configuration, the records its descriptor is built from (see
-- store/src/gate.rs). The compatibility gate compares what a change would
-- serve with what is served now, or, when nothing is, with this; every
-- change that serves a tool something keeps it here in its transaction.
CREATE TABLE served_baseline (
    tool text PRIMARY KEY,
    served jsonb NOT NULL CHECK (jsonb_typeof(served) = 'object')
);
