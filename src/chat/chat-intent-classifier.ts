import type { ChatIntent } from './chat-intent.js';

/**
 * Reads free text no rule recognised into one of the chat intents, by the model. Called only
 * after the caller's runs.control is established; the text goes to the model inside the
 * untrusted block, and whatever the model says is read back as one of the same intents or none.
 */
export const CHAT_INTENT_CLASSIFIER = Symbol('CHAT_INTENT_CLASSIFIER');

export interface ChatIntentClassifier {
  classify(text: string, pipelines: ReadonlySet<string>): Promise<ChatIntent>;
}
