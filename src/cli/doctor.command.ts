import { dirname } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { readInstallationSkills } from '../catalog/installation-skills.js';
import type { ServiceEnvironment } from '../config/environment.js';
import { ConfigService } from '../config/config.service.js';
import { CoreModule } from '../core.module.js';
import { firstRunAdvice } from './first-run-advice.js';
import { DatabaseService } from '../database/database.service.js';
import { FindingsService, type FindingsResponse } from '../findings/findings.service.js';
import { StartupProbesService } from '../findings/startup-probes.service.js';
import type { PreflightCheck, PreflightReport } from '../health/preflight.js';
import { PreflightService } from '../health/preflight.service.js';
import { StoredConfigSync } from '../stored-config/stored-config-sync.service.js';

export interface DoctorReport extends FindingsResponse {
  preflight: PreflightReport & { checks: PreflightCheck[] };
  /** What stands between this configuration and a first run, in plain sentences (empty: nothing). */
  firstRun: string[];
}

/** Runs the same startup probes the server runs, on the configuration file with the stored secrets and settings over it. */
export async function doctor(env: ServiceEnvironment): Promise<DoctorReport> {
  const app = await NestFactory.createApplicationContext(CoreModule.register(env), { logger: false, abortOnError: false });
  try {
    // The stored secrets and settings first, so the probes judge the configuration the server runs on.
    if ((await app.get(DatabaseService).open()).state === 'ready') await app.get(StoredConfigSync).refresh();
    await app.get(StartupProbesService).runAll();
    // The built-in and configured skills, checked as the server checks them at start (a repository's need its mirror: the server's).
    const config = app.get(ConfigService);
    app.get(FindingsService).set('skills', (await readInstallationSkills(config.config.skills.paths, dirname(config.file.path))).findings);
    const preflight = app.get(PreflightService);
    const firstRun = firstRunAdvice(app.get(ConfigService).config, env);
    return { ...app.get(FindingsService).response(), preflight: { ...preflight.report(), checks: preflight.list() }, firstRun };
  } finally {
    await app.close();
  }
}

export function formatDoctor(report: DoctorReport, configPath: string): string {
  const lines = [`pipeline-service doctor: ${configPath}`, ''];
  if (report.firstRun.length > 0) {
    lines.push('Before a first run:');
    for (const sentence of report.firstRun) lines.push(`  - ${sentence}`);
    lines.push('');
  }
  lines.push('Preflight checks:');
  for (const c of report.preflight.checks) {
    lines.push(`  ${c.status.toUpperCase().padEnd(4)} ${c.name.padEnd(16)} ${c.message}`);
    if (c.fix_hint) lines.push(`       ${''.padEnd(16)} fix: ${c.fix_hint}`);
  }
  lines.push('', `Findings: ${report.blocking} blocking, ${report.advisory} advisory`);
  for (const f of report.findings) {
    const where = [f.project && `project ${f.project}`, f.trigger && `trigger ${f.trigger}`, f.field && `field ${f.field}`].filter(Boolean).join(', ');
    lines.push(`  [${f.severity}] ${f.subsystem}${where ? ` (${where})` : ''}: ${f.reason}`);
  }
  return lines.join('\n');
}
