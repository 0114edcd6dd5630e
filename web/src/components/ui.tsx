import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { ApiError } from '../api/client';
import type { RunState } from '../api/types';

type Tone = 'primary' | 'danger' | 'plain';
const TONES: Record<Tone, string> = {
  primary: 'bg-blue-700 text-white hover:bg-blue-800 dark:bg-blue-500 dark:text-slate-950 dark:hover:bg-blue-400',
  danger: 'bg-red-700 text-white hover:bg-red-800 dark:bg-red-400 dark:text-slate-950 dark:hover:bg-red-300',
  plain: 'border border-slate-300 bg-white hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:hover:bg-slate-800',
};

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick'> & { tone?: Tone; onPress?: () => void; isDisabled?: boolean };

/** A native button (fully accessible as it is, and costs the shell no widget library). */
export function Button({ tone = 'plain', className, onPress, isDisabled, type = 'button', ...props }: ButtonProps) {
  return (
    <button
      {...props}
      type={type}
      disabled={isDisabled ?? props.disabled}
      onClick={onPress}
      className={`inline-flex items-center gap-1 rounded px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-50 ${TONES[tone]} ${className ?? ''}`}
    />
  );
}

export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-4 flex flex-wrap items-center justify-between gap-2">
      <h1 className="text-2xl font-semibold">{children}</h1>
      {actions ? <div className="flex gap-2">{actions}</div> : null}
    </div>
  );
}

/** A panel that failed: what failed, what the server said, and a retry. */
export function PanelError({ what, error, retry }: { what: string; error: unknown; retry?: () => void }) {
  const forbidden = error instanceof ApiError && error.status === 403;
  return (
    <div role="status" className="rounded border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
      <p className="font-medium">{forbidden ? `You may not see ${what}.` : `Could not load ${what}.`}</p>
      <p className="mt-1">{forbidden ? `Missing permission: ${(error as ApiError).missingPermissions.join(', ')}` : String((error as Error)?.message ?? error)}</p>
      {retry && !forbidden ? <Button className="mt-2" onPress={retry}>Try again</Button> : null}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="rounded border border-dashed border-slate-300 p-6 text-sm dark:border-slate-700">
      <p className="mb-2 font-medium">{title}</p>
      <div className="space-y-2 text-slate-700 dark:text-slate-300">{children}</div>
    </div>
  );
}

const STATE_TONES: Record<RunState, string> = {
  queued: 'bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100',
  running: 'bg-blue-100 text-blue-900 dark:bg-blue-900 dark:text-blue-100',
  parked: 'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
  succeeded: 'bg-green-100 text-green-900 dark:bg-green-900 dark:text-green-100',
  failed: 'bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100',
  cancelled: 'bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200',
};

export function StateBadge({ state }: { state: RunState }) {
  return <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${STATE_TONES[state] ?? ''}`}>{state}</span>;
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

export function formatTime(iso: string | null): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

export function formatCost(usd: number): string {
  return usd === 0 ? '$0' : `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}
