-- Stored settings (issue 16 part 2): values saved on the dashboard or by an import, laid over the
-- bootstrap file's document by dotted key before the loader reads it. A write bumps config_revision,
-- so every replica re-reads its configuration within a second.
CREATE TABLE config_settings (
  key         text        PRIMARY KEY,
  value       jsonb       NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  updated_by  text        NOT NULL
);
