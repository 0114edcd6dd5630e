import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { ApiError } from '../../api/client';
import type { Run } from '../../api/types';
import { useServices } from '../../app/context';
import { usePermission } from '../../app/identity';
import { Button } from '../../components/ui';
import { cancelRefusal, deleteRefusal, retryRefusal } from '../../lib/run-actions';
import { ConfirmDialog } from './confirm-dialog';

type Action = 'cancel' | 'retry' | 'delete';

export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const said = error.body?.['error'] ?? error.body?.['message'];
    if (error.status === 403) return `You may not do this: missing permission ${error.missingPermissions.join(', ')}.`;
    return typeof said === 'string' && said ? said : error.message;
  }
  return String((error as Error)?.message ?? error);
}

/**
 * "Cancel run", "Retry run", "Delete run" (contract names): each offered only with its permission,
 * disabled with the reason when the run's state does not allow it, and confirmed first. The state
 * change after a cancel arrives through the hub (run.changed patches ['run', id]).
 */
export function RunActions({ run }: { run: Run }) {
  const canControl = usePermission('runs.control');
  const canDelete = usePermission('runs.delete');
  const { api } = useServices();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [open, setOpen] = useState<Action | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [retried, setRetried] = useState<Run | null>(null);
  const ids = { cancel: useId(), retry: useId(), delete: useId() };
  if (!canControl && !canDelete) return null;

  const path = `/api/runs/${encodeURIComponent(run.id)}`;
  const act = async (action: Action) => {
    setBusy(true);
    setError(null);
    try {
      if (action === 'cancel') {
        const answer = await api.send<{ run: Run }>('POST', `${path}/cancel`);
        queryClient.setQueryData(['run', run.id], answer.run);
      } else if (action === 'retry') {
        const answer = await api.send<{ run: Run }>('POST', `${path}/retry`);
        setRetried(answer.run);
        void queryClient.invalidateQueries({ queryKey: ['run', run.id], exact: true });
      } else {
        await api.send('DELETE', path);
        queryClient.removeQueries({ queryKey: ['run', run.id] });
        void navigate({ to: '/runs' });
      }
      setOpen(null);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const controls: { action: Action; label: string; allowed: boolean; refusal: string | null; tone: 'primary' | 'danger' | 'plain' }[] = [];
  if (canControl) {
    controls.push({ action: 'cancel', label: 'Cancel run', allowed: true, refusal: cancelRefusal(run.state), tone: 'plain' });
    controls.push({ action: 'retry', label: 'Retry run', allowed: true, refusal: retryRefusal(run.state), tone: 'plain' });
  }
  if (canDelete) controls.push({ action: 'delete', label: 'Delete run', allowed: true, refusal: deleteRefusal(run.state), tone: 'danger' });

  return (
    <div className="flex flex-col items-end gap-1">
      <div className="flex flex-wrap justify-end gap-2">
        {controls.map((c) => (
          <Button key={c.action} tone={c.tone} isDisabled={c.refusal !== null} aria-describedby={c.refusal ? ids[c.action] : undefined} onPress={() => { setError(null); setOpen(c.action); }}>
            {c.label}
          </Button>
        ))}
      </div>
      {controls.filter((c) => c.refusal).map((c) => (
        <p key={c.action} id={ids[c.action]} className="max-w-md text-right text-xs text-slate-600 dark:text-slate-400">{c.label}: {c.refusal}</p>
      ))}
      {retried ? (
        <p role="status" className="text-sm">
          Retried: <Link to="/runs/$runId" params={{ runId: retried.id }} search={{}} className="text-blue-700 underline dark:text-blue-300">open the new run</Link>
        </p>
      ) : null}
      {open === 'cancel' ? (
        <ConfirmDialog title="Cancel this run?" confirm="Cancel run" tone="danger" busy={busy} error={error} onConfirm={() => void act('cancel')} onClose={() => setOpen(null)}>
          <p>{run.state === 'queued' ? 'The run leaves the queue.' : 'Its commands are killed and its sandboxes removed within 10 seconds.'} The ticket ends failed, &ldquo;cancelled by&rdquo; you.</p>
        </ConfirmDialog>
      ) : null}
      {open === 'retry' ? (
        <ConfirmDialog title="Retry this run?" confirm="Retry run" busy={busy} error={error} onConfirm={() => void act('retry')} onClose={() => setOpen(null)}>
          <p>The ticket is claimed again and a new run starts{run.state === 'parked' ? '; the parked question is closed without an answer' : ''}.</p>
        </ConfirmDialog>
      ) : null}
      {open === 'delete' ? (
        <ConfirmDialog title="Delete this run?" confirm="Delete run" tone="danger" busy={busy} error={error} onConfirm={() => void act('delete')} onClose={() => setOpen(null)}>
          <p>The run, its events, steps, sandboxes and artifacts are deleted. This cannot be undone.</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
