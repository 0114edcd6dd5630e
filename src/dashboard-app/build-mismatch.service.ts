import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { FindingSubsystem, finding } from '../findings/finding.js';
import { FindingsService } from '../findings/findings.service.js';

const SOURCE = 'dashboard-build';
/** A tab of another build not heard from for this long is taken as closed or reloaded. */
export const BUILD_MISMATCH_WINDOW_MS = 10 * 60_000;
/** Distinct foreign builds remembered: the header is caller-controlled, so the set is bounded. */
const MAX_BUILDS = 20;

/**
 * The spec's build finding: a dashboard tab and a server of different builds. Each API call of
 * the app names its build (`X-Dashboard-Build`); another build than the server's raises an
 * advisory finding, which clears itself once no such tab has called for the window.
 */
@Injectable()
export class BuildMismatchService implements OnModuleInit, OnModuleDestroy {
  private readonly lastSeen = new Map<string, number>();
  private serverBuild = '';
  private sweep: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly findings: FindingsService) {}

  /** Closed tabs stop calling: a sweep lets the finding lapse without any request. */
  onModuleInit(): void {
    this.sweep = setInterval(() => { if (this.lastSeen.size > 0) this.publish(); }, 60_000);
    this.sweep.unref();
  }

  onModuleDestroy(): void {
    if (this.sweep) clearInterval(this.sweep);
  }

  serve(build: string): void {
    this.serverBuild = build;
  }

  /** Called for each request that carries the header. */
  observe(tabBuild: string, now = Date.now()): void {
    if (tabBuild === this.serverBuild) {
      if (this.lastSeen.size > 0) this.publish(now);
      return;
    }
    const build = tabBuild.slice(0, 64);
    if (!this.lastSeen.has(build) && this.lastSeen.size >= MAX_BUILDS) this.lastSeen.delete(this.lastSeen.keys().next().value as string);
    const isNew = !this.lastSeen.has(build);
    this.lastSeen.set(build, now);
    if (isNew) this.publish(now);
  }

  /** Drops builds not seen within the window and republishes the finding (or clears it). */
  publish(now = Date.now()): void {
    for (const [build, at] of this.lastSeen) if (now - at > BUILD_MISMATCH_WINDOW_MS) this.lastSeen.delete(build);
    const builds = [...this.lastSeen.keys()];
    this.findings.set(SOURCE, builds.length === 0 ? [] : [
      finding(FindingSubsystem.Build, 'advisory',
        `a dashboard tab of build ${builds.join(', ')} calls a server of build ${this.serverBuild}: reload the tab to get the server's build`),
    ]);
  }
}
