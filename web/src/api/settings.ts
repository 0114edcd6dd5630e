import type { DashboardSettings } from './types';

declare const __DASHBOARD_BUILD__: string;
/** The build this tab runs, compiled in; the server names its own in X-Dashboard-Build. */
export const TAB_BUILD: string = typeof __DASHBOARD_BUILD__ === 'string' ? __DASHBOARD_BUILD__ : 'dev';

export async function loadSettings(): Promise<DashboardSettings> {
  // Exactly the request index.html preloads (no extra header), so the browser reuses its answer.
  const response = await fetch('/api/dashboard/settings', { credentials: 'same-origin', mode: 'cors' });
  if (!response.ok) throw new Error(`GET /api/dashboard/settings answered ${response.status}`);
  return (await response.json()) as DashboardSettings;
}
