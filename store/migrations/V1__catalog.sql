-- The published catalog configuration. Each record is one section of the
-- configuration file (a tenant, a client application, a toolset, ...): its
-- identifier in a column, the rest of its fields as the file has them, in
-- JSON. Every change is a transaction that bumps catalog_revision (its row
-- lock also puts concurrent changes one after the other) and notifies the
-- replicas on the channel toolschema_catalog.

CREATE TABLE catalog_revision (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    revision bigint NOT NULL
);
INSERT INTO catalog_revision (revision) VALUES (0);

-- [catalog], [server], [authorization].
CREATE TABLE setting (
    name text PRIMARY KEY CHECK (name IN ('catalog', 'server', 'authorization')),
    body jsonb NOT NULL CHECK (jsonb_typeof(body) = 'object')
);

CREATE TABLE tenant (
    id text PRIMARY KEY,
    body jsonb NOT NULL CHECK (jsonb_typeof(body) = 'object')
);

CREATE TABLE client (
    id text PRIMARY KEY,
    body jsonb NOT NULL CHECK (jsonb_typeof(body) = 'object')
);

CREATE TABLE toolset (
    id text PRIMARY KEY,
    body jsonb NOT NULL CHECK (jsonb_typeof(body) = 'object')
);

CREATE TABLE downstream (
    id text PRIMARY KEY,
    body jsonb NOT NULL CHECK (jsonb_typeof(body) = 'object')
);

-- A tool from configuration: the downstream it calls; its versions are
-- rows of tool_version with a definition.
CREATE TABLE gateway_tool (
    id text PRIMARY KEY,
    body jsonb NOT NULL CHECK (jsonb_typeof(body) = 'object')
);

-- The versions of every mapping and their statuses: of derived tools
-- (definition null) and of tools from configuration (the version's fields).
CREATE TABLE tool_version (
    tool text NOT NULL,
    version integer NOT NULL CHECK (version >= 1),
    status text NOT NULL CHECK (status IN ('draft', 'proposed', 'published', 'deprecated')),
    definition jsonb CHECK (definition IS NULL OR jsonb_typeof(definition) = 'object'),
    PRIMARY KEY (tool, version)
);

-- Who may use the admin API: a name and the SHA-256 hash of its key.
CREATE TABLE operator (
    name text PRIMARY KEY,
    key_hash text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Every change: who, when, what (the records before and after).
CREATE TABLE audit (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT now(),
    actor text NOT NULL,
    action text NOT NULL,
    target text NOT NULL,
    revision bigint NOT NULL,
    detail jsonb NOT NULL
);
CREATE INDEX audit_at ON audit (at);
