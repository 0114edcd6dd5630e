import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { withTimeout } from '../common/with-timeout.js';
import { ConfigService } from '../config/config.service.js';
import { DatabaseService } from '../database/database.service.js';
import { PreflightService } from '../health/preflight.service.js';
import { SANDBOX_BACKEND } from '../sandbox/sandbox.tokens.js';
import type { SandboxBackend } from '../sandbox/sandbox-backend.js';
import { StoreConnectionService } from '../store/store-connection.service.js';
import {
  configFileProbe, configurationProbe, databaseProbe, sandboxAgentProbe, sandboxBackendProbe, storeProbe,
} from './core-probes.js';
import { finding } from './finding.js';
import { FindingsService } from './findings.service.js';
import type { ProbeOutcome, StartupProbe } from './startup-probe.js';

export const PROBE_TIMEOUT_MS = 10_000;
/** How often a failing sandbox backend is probed again. */
export const BACKEND_RETRY_MS = 30_000;

/**
 * Runs every startup probe once, each bounded by 10 s, without holding up the listener:
 * /health says `pending` until they finish. Probes whose answer can change (database, store)
 * run again when their dependency changes state, so their findings clear by themselves.
 */
@Injectable()
export class StartupProbesService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Startup');
  private readonly probes: StartupProbe[] = [];
  private running: Promise<void> | null = null;
  private readonly backendProbe: StartupProbe;
  private backendRetry: NodeJS.Timeout | null = null;
  /** The probes that judge the configuration: run again whenever it reloads (a file edit, a stored secret or setting). */
  private readonly configProbes: StartupProbe[];
  private configRerun: Promise<void> | null = null;
  private configDirty = false;

  constructor(
    config: ConfigService,
    private readonly findings: FindingsService,
    private readonly preflight: PreflightService,
    db: DatabaseService,
    store: StoreConnectionService,
    @Inject(SANDBOX_BACKEND) backend: SandboxBackend,
  ) {
    const dbProbe = databaseProbe(db);
    const redisProbe = storeProbe(store);
    this.backendProbe = sandboxBackendProbe(backend);
    this.configProbes = [configFileProbe(config, findings), configurationProbe(findings), sandboxAgentProbe(config)];
    this.probes.push(...this.configProbes.slice(0, 2), dbProbe, redisProbe, this.backendProbe, this.configProbes[2]!);
    config.onReload(() => this.configReloaded());
    db.onStatus(() => {
      if (this.preflight.isComplete) void this.runOne(dbProbe);
    });
    store.onStateChange(() => {
      if (this.preflight.isComplete) void this.runOne(redisProbe);
    });
  }

  /** Other modules add server-only checks (such as `sign-in`) before bootstrap. */
  register(probe: StartupProbe): void {
    this.probes.push(probe);
  }

  onApplicationBootstrap(): void {
    void this.runAll();
  }

  /** Runs every probe (once at a time); resolves when all have answered or timed out. */
  runAll(): Promise<void> {
    this.running ??= (async () => {
      const outcomes = await Promise.all(this.probes.map((p) => this.runOne(p)));
      this.preflight.complete();
      // A reload while the first pass ran (the stored secrets arrive once the database is ready) may postdate its config checks.
      if (this.configDirty) this.configReloaded();
      if (outcomes[this.probes.indexOf(this.backendProbe)]?.check.status === 'fail') this.retryBackend();
      const { blocking, advisory } = this.findings.response();
      this.logger.log(`startup checks done: ${blocking} blocking and ${advisory} advisory finding(s); see GET /api/config/findings`);
    })();
    return this.running;
  }

  /** Runs the configuration's probes again, one pass at a time; reloads during a pass make one more pass after it. */
  private configReloaded(): void {
    this.configDirty = true;
    if (!this.preflight.isComplete || this.configRerun) return;
    this.configDirty = false;
    this.configRerun = Promise.all(this.configProbes.map((p) => this.runOne(p))).then(() => {
      this.configRerun = null;
      if (this.configDirty) this.configReloaded();
    });
  }

  /**
   * An unreachable container engine or cluster is probed again until it answers, so its finding
   * clears by itself once it is back (nothing else would notice: no run starts while it blocks).
   */
  private retryBackend(): void {
    if (this.backendRetry) return;
    this.backendRetry = setInterval(() => {
      void this.runOne(this.backendProbe).then((outcome) => {
        if (outcome.check.status !== 'fail' && this.backendRetry) {
          clearInterval(this.backendRetry);
          this.backendRetry = null;
          this.logger.log(`sandbox backend answers again: ${outcome.check.message}`);
        }
      });
    }, BACKEND_RETRY_MS);
    this.backendRetry.unref();
  }

  onApplicationShutdown(): void {
    if (this.backendRetry) clearInterval(this.backendRetry);
    this.backendRetry = null;
  }

  async runOne(probe: StartupProbe): Promise<ProbeOutcome> {
    let outcome: ProbeOutcome;
    try {
      outcome = await withTimeout(probe.run(), PROBE_TIMEOUT_MS, `no answer within ${PROBE_TIMEOUT_MS / 1000} s`);
    } catch (error) {
      const reason = `${probe.name} probe failed (${(error as Error).message}); its state is unknown`;
      const f = finding(probe.subsystem, 'blocking', reason);
      outcome = { findings: [f], check: { name: probe.name, category: probe.category, status: 'fail', message: reason, fix_hint: 'see the server log for the cause' } };
    }
    this.findings.set(`probe:${probe.name}`, outcome.findings);
    this.preflight.record(outcome.check);
    return outcome;
  }
}
