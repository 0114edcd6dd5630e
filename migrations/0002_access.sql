-- The access document (spec "Access-control records"): group mappings, person grants, custom
-- roles, and the callers seen (observations, which are not configuration).

CREATE TABLE access_group_roles (
  group_value  text        PRIMARY KEY,   -- compared exactly, one leading slash removed
  roles        text[]      NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  updated_by   text        NOT NULL
);

CREATE TABLE access_person_grants (
  claim       text        NOT NULL,       -- resolves only while equal to the configured name_claim
  value       text        NOT NULL,       -- compared ordinally
  role        text        NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  created_by  text        NOT NULL,
  PRIMARY KEY (claim, value, role)
);

CREATE TABLE access_custom_roles (
  name         text        PRIMARY KEY,   -- folded to lower case
  permissions  text[]      NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  updated_by   text        NOT NULL
);

CREATE TABLE access_observations (
  subject        text        PRIMARY KEY,
  name_claim     text        NOT NULL,
  name_value     text        NULL,
  role_values    text[]      NOT NULL,
  group_values   text[]      NOT NULL,
  last_seen      timestamptz NOT NULL
);
CREATE INDEX access_observations_last_seen ON access_observations (last_seen);

-- One-off markers, such as the import of auth.group_roles / auth.roles from the bootstrap file.
CREATE TABLE access_markers (
  name        text        PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  detail      jsonb       NULL
);
