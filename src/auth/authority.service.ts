import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '../config/config.service.js';
import { FindingSubsystem, finding } from '../findings/finding.js';
import { FindingsService } from '../findings/findings.service.js';
import { AUTHORITY_PROBE_INTERVAL_MS, AuthorityProbe } from './authority-probe.js';
import { TokenValidator } from './token-validator.js';

const FINDINGS_SOURCE = 'auth:authority';

/**
 * The configured token authority: probed at startup and every 30 s; while unreachable an `auth`
 * finding names it and the cause (blocking when enforcing), and clears when it answers.
 * Authority, audience and `enforce` are bootstrap settings: read once, changed by a restart.
 */
@Injectable()
export class AuthorityService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Authority');
  readonly probe: AuthorityProbe | null;
  readonly validator: TokenValidator | null;
  readonly enforce: boolean;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    config: ConfigService,
    private readonly findings: FindingsService,
  ) {
    const auth = config.config.auth;
    this.enforce = auth?.enforce ?? false;
    this.probe = auth?.authority ? new AuthorityProbe({ authority: auth.authority, enforce: this.enforce }) : null;
    this.validator = this.probe && auth
      ? new TokenValidator({ authority: auth.authority, audience: auth.audience, discovery: this.probe })
      : null;
    if (this.enforce && (!auth?.authority || !auth.audience)) {
      findings.set(`${FINDINGS_SOURCE}:settings`, [finding(FindingSubsystem.Auth, 'blocking',
        'auth.enforce is on but auth.authority or auth.audience is not set: every caller is refused', { field: 'auth' })]);
    }
  }

  onApplicationBootstrap(): void {
    if (!this.probe) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), AUTHORITY_PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  async check(): Promise<void> {
    if (!this.probe) return;
    const before = this.probe.state();
    const status = await this.probe.probeOnce();
    const f = this.probe.finding();
    this.findings.set(FINDINGS_SOURCE, f ? [f] : []);
    if (status.state !== before) {
      if (status.state === 'reachable') this.logger.log(`token authority ${status.authority} reachable (issuer ${status.discovery?.issuer})`);
      else this.logger.warn(`token authority ${status.authority} unreachable: ${status.cause}`);
    }
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
