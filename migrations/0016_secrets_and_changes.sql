-- Stored secrets and the change history (issue 16 parts 3 and 4).

-- A secret's value, encrypted at rest: AES-256-GCM under SERVICE_SECRETS_KEY, `iv ‖ tag ‖ ciphertext`
-- with the name as associated data (a value copied onto another row does not decrypt).
CREATE TABLE secrets (
  name        text        PRIMARY KEY,
  value       bytea       NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  updated_by  text        NOT NULL
);

-- Bumped by every write of stored configuration (secrets today): each replica polls this one row and
-- re-resolves its configuration when it moved, so a saved secret applies everywhere without a restart.
CREATE TABLE config_revision (
  id        boolean PRIMARY KEY DEFAULT true CHECK (id),
  revision  bigint  NOT NULL
);
INSERT INTO config_revision (id, revision) VALUES (true, 0);

-- One row per write of secrets or access. `before`/`after` are what the feed shows (secret values
-- masked); `before_secret` keeps a secret's previous value encrypted (as in `secrets`) so a revert can
-- restore it, and is never served.
CREATE TABLE config_changes (
  id             bigserial   PRIMARY KEY,
  at             timestamptz NOT NULL DEFAULT now(),
  attribution    text        NOT NULL,
  kind           text        NOT NULL,
  target         text        NOT NULL,
  before         jsonb       NULL,
  after          jsonb       NULL,
  before_secret  bytea       NULL,
  revert_of      bigint      NULL REFERENCES config_changes (id)
);
CREATE INDEX config_changes_target ON config_changes (target, id);
