-- A hash of every row, computed by PostgreSQL from what the row holds
-- (its table, key and JSON as text): the XOR of a table's hashes is a
-- digest of the table that a replica compares with the XOR of the hashes
-- of the rows it serves (read along with them), and reads every record
-- when they differ. However the tables came to hold what they hold (a
-- change, a change-log row that does not match them, a hand edit),
-- replicas converge on them.
ALTER TABLE setting ADD COLUMN row_hash bigint NOT NULL
    GENERATED ALWAYS AS (('x' || left(md5('setting' || chr(31) || name || chr(31) || body::text), 16))::bit(64)::bigint) STORED;
ALTER TABLE tenant ADD COLUMN row_hash bigint NOT NULL
    GENERATED ALWAYS AS (('x' || left(md5('tenant' || chr(31) || id || chr(31) || body::text), 16))::bit(64)::bigint) STORED;
ALTER TABLE client ADD COLUMN row_hash bigint NOT NULL
    GENERATED ALWAYS AS (('x' || left(md5('client' || chr(31) || id || chr(31) || body::text), 16))::bit(64)::bigint) STORED;
ALTER TABLE toolset ADD COLUMN row_hash bigint NOT NULL
    GENERATED ALWAYS AS (('x' || left(md5('toolset' || chr(31) || id || chr(31) || body::text), 16))::bit(64)::bigint) STORED;
ALTER TABLE downstream ADD COLUMN row_hash bigint NOT NULL
    GENERATED ALWAYS AS (('x' || left(md5('downstream' || chr(31) || id || chr(31) || body::text), 16))::bit(64)::bigint) STORED;
ALTER TABLE gateway_tool ADD COLUMN row_hash bigint NOT NULL
    GENERATED ALWAYS AS (('x' || left(md5('gateway_tool' || chr(31) || id || chr(31) || body::text), 16))::bit(64)::bigint) STORED;
ALTER TABLE tool_version ADD COLUMN row_hash bigint NOT NULL
    GENERATED ALWAYS AS (('x' || left(md5('tool_version' || chr(31) || tool || chr(31) || version::text || chr(31) || status || chr(31) || coalesce(definition::text, 'null')), 16))::bit(64)::bigint) STORED;
