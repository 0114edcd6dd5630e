import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { AccessStoreService } from '../access/access-store.service.js';
import { SERVICE_ENVIRONMENT } from '../config/config.tokens.js';
import { ConfigService } from '../config/config.service.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { DatabaseService } from '../database/database.service.js';
import { FindingSubsystem } from '../findings/finding.js';
import type { StartupProbe } from '../findings/startup-probe.js';
import { StartupProbesService } from '../findings/startup-probes.service.js';
import { checkAdminRoute } from './access-rules.js';
import { AuthenticationService } from './authentication.service.js';

/**
 * Preflight `sign-in` (category `auth`): how many callers were accepted in the observation
 * window and through which route an administrator can be reached. With enforcement on it fails
 * when nobody was accepted in that window, or when no administrator can be seen.
 */
@Injectable()
export class SignInProbe implements OnModuleInit {
  constructor(
    private readonly probes: StartupProbesService,
    private readonly config: ConfigService,
    private readonly db: DatabaseService,
    private readonly access: AccessStoreService,
    private readonly authn: AuthenticationService,
    @Inject(SERVICE_ENVIRONMENT) private readonly env: ServiceEnvironment,
  ) {}

  onModuleInit(): void {
    this.probes.register(this.probe());
  }

  probe(): StartupProbe {
    const self = this;
    return {
      name: 'sign-in', subsystem: FindingSubsystem.Auth, category: 'auth',
      async run() {
        const check = (status: 'pass' | 'fail' | 'skip', message: string, fix_hint = '') =>
          ({ findings: [], check: { name: 'sign-in', category: 'auth', status, message, fix_hint } });
        const auth = self.config.config.auth;
        if (!auth?.authority) return check('skip', 'no token authority configured (auth.authority): nothing authenticates');
        const days = self.config.config.observation_retention_days;
        const status = await self.db.open();
        if (status.state !== 'ready') return check(self.authn.enforce ? 'fail' : 'skip', 'cannot count accepted callers: the database is not ready', 'see the database finding');
        const [{ callers, admins }] = await self.db.dataSource.query(
          `SELECT count(*)::int AS callers, count(*) FILTER (WHERE EXISTS (SELECT 1 FROM unnest(role_values) r WHERE lower(r) = 'admin'))::int AS admins
           FROM access_observations WHERE last_seen > now() - make_interval(days => $1)`, [days]) as { callers: number; admins: number }[];
        const route = checkAdminRoute({
          access: await self.access.refreshDocument(), claimNames: self.authn.claimNames(), roleClaimInUse: admins > 0, adminGrant: self.env.adminGrant,
        });
        const message = `${callers} caller(s) accepted in the last ${days} days; ` +
          (route.ok ? `an administrator can be reached through: ${route.routes.join(', ')}` : 'no administrator can be seen from the server');
        if (!self.authn.enforce) return check('pass', message);
        if (callers === 0) return check('fail', message, 'sign in once with enforce off to confirm tokens are accepted (GET /api/identity)');
        if (!route.ok) return check('fail', message, 'grant admin to someone: SERVICE_ADMIN_GRANT=sub:<subject> or group:<group>');
        return check('pass', message);
      },
    };
  }
}
