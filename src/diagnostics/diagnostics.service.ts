import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { clipText } from '../common/clip-text.js';
import { collectSecrets, scrubSecrets } from '../common/secret-scrubber.js';
import { withTimeout } from '../common/with-timeout.js';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService, describe } from '../database/database.service.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import { BackgroundSubsystem } from '../store/subsystem.js';
import { SubsystemsService } from '../store/subsystems.service.js';
import { candidateConnectionOf, probeHttp, type CandidateConnection } from '../platforms/platform-connections.js';
import { credentialFreeUrl } from './target-url.js';
import { ConnectionBook, latest, type Observed } from './connection-book.service.js';
import { AUTHORITY_KEY, ConnectionCatalog, type ConnectionEntry, DATABASE_KEY, STORE_KEY } from './connection-catalog.service.js';
import type { ConnectionKind } from './connection-kind.js';
import { DIAGNOSTICS_OPTIONS, type DiagnosticsOptions } from './diagnostics.options.js';
import { webhookStatuses, type WebhookStatus } from './webhook-deliveries.js';

export interface ConnectionView {
  name: string;
  kind: ConnectionKind;
  project: string | null;
  target: string | null;
  configured: boolean;
  lastOk: string | null;
  lastError: { at: string; message: string } | null;
}

export interface ProbeAnswer {
  name: string;
  ok: boolean;
  latencyMs: number;
  error: string | null;
}

export interface CandidateProbeAnswer {
  ok: boolean;
  latencyMs: number;
  target: string | null;
  error: string | null;
}

/** Error texts are short: a sentence for a person, not a dump. */
const MAX_ERROR = 500;

/**
 * The connection snapshot (no outbound call: configuration, memory and the trigger log) and the
 * probe (one read-only round trip, bounded, at most one in flight per connection, its result
 * remembered as the connection's last success or failure). Every text that leaves is scrubbed of
 * every secret the service knows.
 */
@Injectable()
export class DiagnosticsService implements OnModuleDestroy {
  private readonly inFlight = new Map<string, Promise<ProbeAnswer>>();
  private readonly inFlightCandidates = new Map<string, Promise<CandidateProbeAnswer>>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly config: ConfigService,
    private readonly catalog: ConnectionCatalog,
    private readonly book: ConnectionBook,
    private readonly db: DatabaseService,
    private readonly store: StoreConnectionService,
    private readonly subsystems: SubsystemsService,
    @Inject(DIAGNOSTICS_OPTIONS) private readonly options: DiagnosticsOptions,
  ) {
    // The store and the database are used all the time: their state changes are what the server observes of them.
    this.unsubscribe.push(store.onStateChange((connected) =>
      book.record(STORE_KEY, connected, connected ? null : subsystems.get(BackgroundSubsystem.Redis).reason)));
    this.unsubscribe.push(db.onStatus((status) => {
      if (status.state !== 'connecting') book.record(DATABASE_KEY, status.state === 'ready', describe(status));
    }));
  }

  async snapshot(): Promise<{ connections: ConnectionView[]; webhooks: WebhookStatus[] }> {
    const scrub = this.scrubber();
    const connections = this.catalog.entries().map((entry) => this.view(entry, scrub));
    return { connections, webhooks: await webhookStatuses(this.config.config, this.db) };
  }

  /** null: no connection of that name. */
  probe(name: string): Promise<ProbeAnswer> | null {
    const running = this.inFlight.get(name);
    if (running) return running;
    const entry = this.catalog.entries().find((e) => e.name === name);
    if (!entry) return null;
    const answer = this.run(entry).finally(() => this.inFlight.delete(name));
    this.inFlight.set(name, answer);
    return answer;
  }

  /**
   * Probes a connection described in the request, before anything is saved: built as a configured
   * one would be, bounded the same, remembered nowhere (the snapshot has no such connection). Two
   * identical candidates at once share one round trip. The candidate's token is scrubbed from
   * what is answered, with every secret the service knows.
   */
  probeCandidate(candidate: CandidateConnection): Promise<CandidateProbeAnswer> {
    const key = `candidate:${createHash('sha256').update(JSON.stringify(candidate)).digest('hex')}`;
    const running = this.inFlightCandidates.get(key);
    if (running) return running;
    const answer = this.runCandidate(candidate).finally(() => this.inFlightCandidates.delete(key));
    this.inFlightCandidates.set(key, answer);
    return answer;
  }

  onModuleDestroy(): void {
    for (const off of this.unsubscribe) off();
  }

  private async run(entry: ConnectionEntry): Promise<ProbeAnswer> {
    const timeoutMs = this.options.probeTimeoutMs;
    const started = performance.now();
    let error: string | null = null;
    try {
      await withTimeout(entry.probe(timeoutMs), timeoutMs, `no answer within ${timeoutMs} ms (timed out)`);
    } catch (failure) {
      error = clipText(this.scrubber()(describeFailure(failure)), MAX_ERROR);
    }
    const latencyMs = Math.round(performance.now() - started);
    this.book.record(probeKey(entry), error === null, error);
    return { name: entry.name, ok: error === null, latencyMs, error };
  }

  private async runCandidate(candidate: CandidateConnection): Promise<CandidateProbeAnswer> {
    const timeoutMs = this.options.probeTimeoutMs;
    const started = performance.now();
    const scrub = this.scrubber(candidateSecrets(candidate.token));
    const connection = candidateConnectionOf(candidate, probeHttp(timeoutMs));
    const target = connection.target === null ? null : credentialFreeUrl(scrub(connection.target));
    let error: string | null = null;
    try {
      if ('unconfigured' in connection) throw new Error(`not usable: ${connection.unconfigured}`);
      await withTimeout(connection.probe(), timeoutMs, `no answer within ${timeoutMs} ms (timed out)`);
    } catch (failure) {
      error = clipText(scrub(describeFailure(failure)), MAX_ERROR);
    }
    return { ok: error === null, latencyMs: Math.round(performance.now() - started), target, error };
  }

  private view(entry: ConnectionEntry, scrub: (text: string) => string): ConnectionView {
    let seen = latest(this.book.get(entry.observedAs), this.book.get(probeKey(entry)));
    seen = latest(seen, this.liveState(entry));
    return {
      name: entry.name, kind: entry.kind, project: entry.project, target: entry.target === null ? null : scrub(entry.target),
      configured: entry.configured,
      lastOk: seen.lastOk?.toISOString() ?? null,
      lastError: seen.lastError ? { at: seen.lastError.at.toISOString(), message: clipText(scrub(seen.lastError.message), MAX_ERROR) } : null,
    };
  }

  /**
   * What the server knows without asking: the store's and the database's connections work now
   * while the server holds them up (both are used on every request); the authority's own probe
   * (at startup and every 30 s) has its last success and failure.
   */
  private liveState(entry: ConnectionEntry): Observed {
    const now = new Date();
    switch (entry.observedAs) {
      case STORE_KEY:
        return { lastOk: this.store.isConnected ? now : null, lastError: null };
      case DATABASE_KEY:
        return { lastOk: this.db.isReady ? now : null, lastError: null };
      case AUTHORITY_KEY:
        return this.catalog.authorityStatus();
      default:
        return { lastOk: null, lastError: null };
    }
  }

  private scrubber(extra: string[] = []): (text: string) => string {
    const secrets = [...collectSecrets(this.config.config, this.config.env), ...extra];
    return (text) => scrubSecrets(text, secrets);
  }
}

/** A probe's record is kept under the connection's name, beside what normal work reported under its key. */
function probeKey(entry: ConnectionEntry): string {
  return `probe:${entry.name}`;
}

/** A candidate's token as the clients may have sent it: whole, and a Jira `user:token`'s token half (its encodings are scrubbed with it). */
function candidateSecrets(token: string): string[] {
  const out = [token];
  const sep = token.indexOf(':');
  if (sep > 0 && token.length - sep > 4) out.push(token.slice(sep + 1));
  return out;
}

function describeFailure(failure: unknown): string {
  if (failure instanceof Error) return failure.message.replace(/\s+/g, ' ').trim() || failure.name;
  return String(failure);
}
