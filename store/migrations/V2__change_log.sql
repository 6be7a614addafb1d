-- What each revision changed, written in the same transaction as the
-- change: the records it wrote or removed (see store/src/changes.rs for the
-- form). A replica serving an earlier revision reads the entries after its
-- own and applies them; one that finds an entry missing (the log keeps the
-- last 1,000 revisions, and none from before it existed) reads every record.
CREATE TABLE change (
    revision bigint PRIMARY KEY,
    changes jsonb NOT NULL CHECK (jsonb_typeof(changes) = 'object')
);
