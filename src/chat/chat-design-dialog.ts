/**
 * The seam to the design dialogue (`src/dialog/`, contract "The design dialogue"): chat holds a
 * conversation in a thread through this, and files its drafts after the thread's confirmation.
 * Provided under CHAT_DESIGN_DIALOG by the dialogue's module; without a provider chat says the
 * dialogue is not available here.
 */
export const CHAT_DESIGN_DIALOG = Symbol('CHAT_DESIGN_DIALOG');

export interface DesignDraft {
  title: string;
  body: string;
  criteria: string[];
  labels: string[];
}

export interface DesignTurn {
  conversationId: string;
  reply: { kind: 'answer' | 'proposal'; text: string; tickets: DesignDraft[] };
}

export interface ChatDesignDialog {
  /** One turn of the conversation (`conversationId` null: a new one), owned by `owner` (the chat principal). */
  turn(input: { owner: string; project: string; message: string; conversationId: string | null }): Promise<DesignTurn>;
  /** Files every draft of the conversation not filed yet in the project's tracker (`start`: also into its trigger status). */
  file(input: { owner: string; conversationId: string; start: boolean }): Promise<{ filed: { ticket: string; url: string }[] }>;
}
