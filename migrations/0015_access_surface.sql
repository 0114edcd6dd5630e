-- The Access surface (issue 16 part 1): claim names saved from the surface, people added by hand,
-- and one revision counter every access write bumps, so every replica notices a write on its
-- next request with one primary-key read.

CREATE TABLE access_claim_names (
  id           boolean     PRIMARY KEY DEFAULT true CHECK (id),   -- one row
  role_claim   text        NULL,                                  -- NULL: the bootstrap file's value
  group_claim  text        NULL,
  name_claim   text        NULL,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  updated_by   text        NOT NULL
);

-- Someone added on the People pane before they signed in ({claim, value} as a grant names them).
CREATE TABLE access_people (
  claim       text        NOT NULL,
  value       text        NOT NULL,
  added_at    timestamptz NOT NULL DEFAULT now(),
  added_by    text        NOT NULL,
  PRIMARY KEY (claim, value)
);

CREATE TABLE access_revision (
  id        boolean PRIMARY KEY DEFAULT true CHECK (id),
  revision  bigint  NOT NULL
);
INSERT INTO access_revision (id, revision) VALUES (true, 0);
