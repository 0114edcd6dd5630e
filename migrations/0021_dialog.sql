-- The design dialogue (issue 29): a person's conversations with the model about a project, the
-- ticket drafts the model proposed in them, and which drafts were filed as which tickets.

-- One conversation: its owner is the caller's name-claim value (`dashboard` without one), and only
-- the owner reads it. Usage sums every model call of every turn; the project's agent budgets
-- (max_tokens, max_cost_usd) count against it as against a run.
CREATE TABLE dialog_conversations (
  id            uuid             PRIMARY KEY,
  owner         text             NOT NULL,
  project       text             NOT NULL,
  title         text             NOT NULL,
  created_at    timestamptz      NOT NULL DEFAULT now(),
  updated_at    timestamptz      NOT NULL DEFAULT now(),
  model_calls   integer          NOT NULL DEFAULT 0,
  input_tokens  bigint           NOT NULL DEFAULT 0,
  output_tokens bigint           NOT NULL DEFAULT 0,
  cost_usd      double precision NOT NULL DEFAULT 0
);
CREATE INDEX dialog_conversations_owner ON dialog_conversations (owner, updated_at DESC);

-- The messages in order: the person's, and the model's replies (`answer` or `proposal`).
CREATE TABLE dialog_messages (
  conversation_id uuid        NOT NULL REFERENCES dialog_conversations (id) ON DELETE CASCADE,
  seq             integer     NOT NULL,
  role            text        NOT NULL CHECK (role IN ('person', 'model')),
  kind            text        NULL CHECK (kind IN ('answer', 'proposal')),
  text            text        NOT NULL,
  at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, seq)
);

-- Every draft the model proposed, numbered 0, 1, … across the conversation (the indices
-- `POST /api/dialog/:id/file` names). A filed draft remembers its ticket: filing it again
-- answers that ticket instead of filing a second one.
CREATE TABLE dialog_drafts (
  conversation_id uuid        NOT NULL REFERENCES dialog_conversations (id) ON DELETE CASCADE,
  draft_index     integer     NOT NULL,
  message_seq     integer     NOT NULL,
  title           text        NOT NULL,
  body            text        NOT NULL,
  criteria        jsonb       NOT NULL,
  labels          jsonb       NOT NULL,
  filed_ticket    text        NULL,
  filed_url       text        NULL,
  filed_by        text        NULL,
  filed_at        timestamptz NULL,
  started         boolean     NOT NULL DEFAULT false,
  PRIMARY KEY (conversation_id, draft_index)
);
