import { Outlet } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { useServices } from '../app/context';
import { useIdentity } from '../app/identity';
import { BuildNotice } from './build-notice';
import { DegradedBanner } from './degraded-banner';
import { Navigation } from './navigation';
import { Shortcuts } from './shortcuts';
import { type Theme, applyTheme, storedTheme, watchSystemTheme } from './theme';

function ThemePicker() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useEffect(() => applyTheme(theme), [theme]);
  useEffect(() => watchSystemTheme(), []);
  return (
    <label className="flex items-center gap-2 text-sm">
      Theme
      <select
        className="rounded border border-slate-300 bg-white px-2 py-1 dark:border-slate-600 dark:bg-slate-900"
        value={theme}
        onChange={(e) => setTheme(e.target.value as Theme)}
      >
        <option value="system">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}

function Who() {
  const { session } = useServices();
  const identity = useIdentity();
  if (!session.enabled) return <span className="text-sm text-slate-600 dark:text-slate-400">No sign-in configured</span>;
  const name = identity.data?.subject ?? session.userName();
  return (
    <span className="flex items-center gap-2 text-sm">
      {name ? <span>Signed in as {name}</span> : null}
      <button type="button" className="underline" onClick={() => void session.signOut()}>Sign out</button>
    </span>
  );
}

export function Shell() {
  return (
    <div className="min-h-screen">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:p-2">Skip to content</a>
      <DegradedBanner />
      <BuildNotice />
      <header className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-2 dark:border-slate-800">
        <span className="font-semibold">pipeline-service</span>
        <div className="flex items-center gap-4">
          <Who />
          <ThemePicker />
          <span className="hidden text-xs text-slate-600 md:inline dark:text-slate-400">Press ? for shortcuts</span>
        </div>
      </header>
      <div className="flex flex-col md:flex-row">
        <aside className="border-b border-slate-200 p-2 md:min-h-[calc(100vh-3rem)] md:w-48 md:border-r md:border-b-0 dark:border-slate-800">
          <Navigation />
        </aside>
        <main id="main" className="min-w-0 flex-1 p-4">
          <Outlet />
        </main>
      </div>
      <Shortcuts />
    </div>
  );
}
