import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { onTestFinished } from 'vitest';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type ServerProcess, ROOT, freePort, startServer } from './server-process.js';
import { type TempConfig, tempConfig } from './temp-config.js';
import { type TestDatabase, createTestDatabase } from './test-database.js';
import { REDIS_URL, uniqueKeyPrefix } from './test-store.js';

/**
 * Browser end-to-end support: the BUILT server (dist/main.js, dashboard in dist/web) with
 * enforcement on, the oidc-provider stand-in as its authority with the dashboard registered as a
 * public client, and Debian's Chromium driven by playwright-core (no browser download). One
 * stand (server, authority, database, browser) per test file; one browser context per page a
 * test opens, so every page signs in for real (code flow + PKCE through the login form).
 *
 * Every page opened here fails its test on a content-security-policy violation or an uncaught
 * page error. `inspectPage` scans the page with axe-core (failing on serious/critical violations)
 * and writes `test-results/screenshots/<name>-<light|dark>.png` for a reviewer, in both themes.
 */

export const CHROMIUM = process.env.TEST_CHROMIUM ?? '/usr/bin/chromium';
/** Why the browser tests cannot run here (null: they can). */
export const browserUnavailable: string | null = existsSync(CHROMIUM)
  ? null
  : `${CHROMIUM} is missing (Debian's chromium package; .ci/run installs it)`;

export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'screenshots');
/** The server's audience: an absolute URI, since the app sends it as the OAuth `resource`. */
export const DASHBOARD_AUDIENCE = 'api://pipeline-service-dashboard-tests';
/** Test users and their `roles` claim. */
export const USERS: Record<string, string[]> = {
  reader: ['reader'],
  operator: ['operator'],
  admin: ['admin'],
  nobody: [],
};

/** A browser test's own timeout: several sign-ins and live waits on a shared two-core machine. */
export const BROWSER_TEST_TIMEOUT_MS = 120_000;

/** How long a locator waits for the page to get there (sign-in, hub, live reload). */
export const UI_TIMEOUT_MS = 15_000;

export interface StandOptions {
  /** The `service.yml` written for the server (key prefix and store added). */
  config?: Record<string, unknown>;
  /** Extra server environment (e.g. webhook secrets). */
  env?: Record<string, string>;
  /** KVSTORE_URL (default: the machine's Redis). */
  redisUrl?: string;
  /** The authority signs access tokens for this audience instead of the server's. */
  tokenAudience?: string;
  users?: Record<string, string[]>;
}

export interface Stand {
  server: ServerProcess;
  authority: OidcAuthority;
  database: TestDatabase;
  config: TempConfig;
  /** The store key prefix this server uses (`queue.key_prefix`). */
  keyPrefix: string;
  browser: Browser;
  baseUrl: string;
  /** A fresh, signed-out browser context and page; closed (and checked) when the test ends. */
  newPage(options?: PageOptions): Promise<DashboardPage>;
  /** An API call as `user` with a token the authority signs (what a script would do). */
  api<T = unknown>(user: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Rewrites `service.yml` (the server reloads it live). */
  writeConfig(config: Record<string, unknown>): void;
  stop(): Promise<void>;
}

export interface PageOptions {
  colorScheme?: 'light' | 'dark';
  viewport?: { width: number; height: number };
}

/** Starts authority, database, server and Chromium. Call from `beforeAll` (60 s hook timeout). */
export async function startStand(options: StandOptions = {}): Promise<Stand> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const users = options.users ?? USERS;
  const authority = await OidcAuthority.start({
    defaultAudience: DASHBOARD_AUDIENCE,
    dashboard: { redirectUri: `${baseUrl}/signin-callback`, users, ...(options.tokenAudience ? { tokenAudience: options.tokenAudience } : {}) },
  });
  const database = await createTestDatabase('browser_test');
  const keyPrefix = uniqueKeyPrefix('browser');
  const withPrefix = (c: Record<string, unknown>): Record<string, unknown> => ({
    ...c,
    queue: { redis_retry_interval_seconds: 1, ...(c['queue'] as Record<string, unknown> | undefined), key_prefix: keyPrefix },
  });
  const config = tempConfig('browser-test', withPrefix(options.config ?? {}));
  let server: ServerProcess | null = null;
  let browser: Browser | null = null;
  try {
    server = await startServer({
      SERVICE_CONFIG: config.path,
      SERVICE_DATA_DIR: config.dir,
      DATABASE_URL: database.url,
      KVSTORE_URL: options.redisUrl ?? REDIS_URL,
      SERVICE_AUTH_AUTHORITY: authority.authority,
      SERVICE_AUTH_AUDIENCE: DASHBOARD_AUDIENCE,
      SERVICE_AUTH_CLIENT_ID: authority.dashboardClientId,
      SERVICE_AUTH_ENFORCE: 'true',
      LOG_LEVEL: 'warn',
      ...options.env,
    }, { port, timeoutMs: 30_000 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  } catch (error) {
    await server?.stop(2000);
    await authority.stop();
    await database.drop().catch(() => undefined);
    config.remove();
    throw error;
  }
  const started = { server, browser };
  return {
    server, authority, database, config, keyPrefix, browser, baseUrl,
    newPage: (pageOptions) => openPage(started.browser, baseUrl, pageOptions),
    async api<T>(user: string, method: string, path: string, body?: unknown) {
      const token = authority.mint({ aud: DASHBOARD_AUDIENCE, sub: user, claims: { roles: users[user] ?? [] } });
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    },
    writeConfig: (next) => config.write(withPrefix(next)),
    async stop() {
      await started.browser.close().catch(() => undefined);
      await started.server.stop();
      await authority.stop();
      await database.drop().catch(() => undefined);
      config.remove();
    },
  };
}

/** One browser context's page, and what went wrong in it. */
export class DashboardPage {
  /** CSP violations and uncaught page errors: any of them fails the test. */
  readonly problems: string[] = [];
  /** Console errors (a refused request logs one too): shown when the test fails, not failing it. */
  readonly consoleErrors: string[] = [];

  constructor(
    readonly page: Page,
    readonly context: BrowserContext,
    readonly baseUrl: string,
  ) {}

  /** Opens `path` (a signed-out page is sent to the authority). */
  async goto(path: string): Promise<void> {
    await this.page.goto(`${this.baseUrl}${path}`);
  }

  /** Opens `path` and signs in as `user` at the authority's login form; resolves on the server's page again. */
  async signIn(path: string, user: string): Promise<void> {
    await this.goto(path);
    const field = this.page.getByLabel('User');
    await field.fill(user, { timeout: UI_TIMEOUT_MS });
    await this.page.getByRole('button', { name: 'Sign in' }).click();
    await this.page.waitForURL((url) => url.origin === this.baseUrl && url.pathname !== '/signin-callback', { timeout: UI_TIMEOUT_MS });
    // The shell's own navigation: a page may hold navigation landmarks of its own (pagers).
    await this.page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: UI_TIMEOUT_MS });
  }

  /** The path + query the page shows now. */
  here(): string {
    const url = new URL(this.page.url());
    return `${url.pathname}${url.search}`;
  }

  /** Waits until the page's `h1` names `title` (the contract: one h1 per page naming it). */
  async heading(title: string): Promise<void> {
    await this.page.getByRole('heading', { level: 1, name: title }).waitFor({ timeout: UI_TIMEOUT_MS });
  }
}

async function openPage(browser: Browser, baseUrl: string, options: PageOptions = {}): Promise<DashboardPage> {
  const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light', viewport: options.viewport ?? { width: 1280, height: 800 } });
  const page = await context.newPage();
  const dashboard = new DashboardPage(page, context, baseUrl);
  // The binding and the listener are installed by the browser (not by an inline script), so the
  // page's own policy does not block them; only the server's pages report.
  await context.exposeBinding('__reportCspViolation', ({ frame }, text: string) => {
    if (frame.url().startsWith(baseUrl)) dashboard.problems.push(`CSP violation: ${text}`);
  });
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => {
      void window.__reportCspViolation(e.effectiveDirective + ' blocked ' + (e.blockedURI || 'inline') + ' (' + e.sourceFile + ':' + e.lineNumber + ')');
    });`,
  });
  page.on('pageerror', (error) => {
    if (page.url().startsWith(baseUrl)) dashboard.problems.push(`page error: ${error.message}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') dashboard.consoleErrors.push(message.text());
  });
  onTestFinished(async ({ task }) => {
    await context.close().catch(() => undefined);
    if (dashboard.problems.length > 0) {
      throw new Error(`the page reported problems:\n${dashboard.problems.join('\n')}\nconsole errors:\n${dashboard.consoleErrors.join('\n')}`);
    }
    if (task.result?.state === 'fail' && dashboard.consoleErrors.length > 0) {
      console.error(`console errors of the failed test's page:\n${dashboard.consoleErrors.join('\n')}`);
    }
  });
  return dashboard;
}

/** Runs axe-core on the page as it stands; fails, listing them, on serious or critical violations. */
export async function checkAccessibility(dashboard: DashboardPage, name: string): Promise<void> {
  const results = await new AxeBuilder({ page: dashboard.page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (bad.length === 0) return;
  const lines = bad.flatMap((v) => [
    `${v.impact}: ${v.id} — ${v.help} (${v.helpUrl})`,
    ...v.nodes.slice(0, 5).map((n) => `    ${n.target.join(' ')}: ${n.failureSummary?.replace(/\n/g, ' ') ?? ''}`),
  ]);
  throw new Error(`axe-core found ${bad.length} serious/critical violation(s) on ${name}:\n${lines.join('\n')}`);
}

/** The few browser globals the helpers read (the test code is compiled without the DOM library). */
export interface PageGlobals {
  document: { documentElement: { classList: { contains(name: string): boolean } } };
  [marker: string]: unknown;
}

/** Switches the system colour scheme (the app's default "System" theme follows it) and waits for the app to apply it. */
export async function useScheme(dashboard: DashboardPage, scheme: 'light' | 'dark'): Promise<void> {
  await dashboard.page.emulateMedia({ colorScheme: scheme });
  // A function, not a string: a string predicate is evaluated with `new Function`, which the page's policy refuses.
  await dashboard.page.waitForFunction((dark: boolean) => (globalThis as unknown as PageGlobals).document.documentElement.classList.contains('dark') === dark, scheme === 'dark');
}

/**
 * The page as it stands, in light and then dark: an axe-core scan of each (contrast differs) and
 * a full-page screenshot of each (`test-results/screenshots/<name>-<light|dark>.png`). The page
 * is left light.
 */
export async function inspectPage(dashboard: DashboardPage, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await useScheme(dashboard, scheme);
    await checkAccessibility(dashboard, `${name} (${scheme})`);
    await dashboard.page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${scheme}.png`), fullPage: true, animations: 'disabled' });
  }
  await useScheme(dashboard, 'light');
}
