import type { ConfigReader, Location } from './config-reader.js';
import { CHAT, CHAT_SHARED_KEYS, type BlockShape } from './config-shape.js';
import type { ChatConfig } from './service-config.js';

/**
 * `chat:`: every chat platform's block read as its shape declares it (secrets resolved and
 * masked like any other), the channel roles and the dashboard's address. What a platform needs
 * of its block, and what a half-filled one lacks, is that platform's own judgement (its module
 * under `src/chat/platforms/` reports it as a finding).
 */
export function readChat(r: ConfigReader, raw: unknown): ChatConfig {
  const where: Location = { path: 'chat' };
  const b = r.block(raw, where, CHAT);
  const out: ChatConfig = { platforms: {}, channels: r.field(CHAT, b, where, 'channels'), dashboard_url: r.field(CHAT, b, where, 'dashboard_url') };
  for (const [name, shape] of Object.entries(CHAT.keys)) {
    if (CHAT_SHARED_KEYS.includes(name) || b[name] === undefined || b[name] === null) continue;
    const platformShape = shape as BlockShape;
    const at = r.at(where, name);
    const pb = r.block(b[name], at, platformShape);
    const values: Record<string, string | null> = {};
    for (const key of Object.keys(platformShape.keys)) values[key] = r.value(platformShape.keys[key]!, pb[key], r.at(at, key)) as string | null;
    out.platforms[name] = values;
  }
  return out;
}
