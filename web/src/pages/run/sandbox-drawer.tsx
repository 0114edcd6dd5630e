import { useMemo, useRef, useState } from 'react';
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import type { Run } from '../../api/types';
import { Button } from '../../components/ui';
import { FilteredLog } from '../../lib/run-log';
import { LogView } from './log-view';
import { useBatchedEvents } from './use-batched-events';

/**
 * The live sandbox drawer (runs.watch): the run's sandbox output (stdout and stderr) as it
 * streams, per sandbox, from the run's hub room. Opened by `drawer=true` in the URL.
 */
export function SandboxDrawer({ run, onClose }: { run: Run; onClose: () => void }) {
  const [snapshot, Source] = useBatchedEvents(run.id, true);
  const [sandbox, setSandbox] = useState<string>('');
  const filtered = useRef(new FilteredLog());
  const events = snapshot?.events ?? [];
  const filter = useMemo(() => ({ kind: 'stdout,stderr', sandbox: sandbox || undefined }), [sandbox]);
  const indexes = useMemo(() => filtered.current.update(events, filter), [events, snapshot?.revision, filter]); // eslint-disable-line react-hooks/exhaustive-deps
  const live = run.state === 'running' || run.state === 'queued';
  return (
    <ModalOverlay isOpen isDismissable onOpenChange={(open) => { if (!open) onClose(); }} className="fixed inset-0 z-50 bg-black/30">
      <Modal className="fixed top-0 right-0 flex h-full w-full max-w-3xl flex-col bg-white shadow-2xl dark:bg-slate-900">
        <Dialog className="flex h-full flex-col p-4 outline-none">
          <Source />
          <div className="mb-3 flex flex-wrap items-center gap-2">
            <Heading slot="title" className="mr-auto text-lg font-semibold">Live sandbox output</Heading>
            <span role="status" className="text-xs text-slate-600 dark:text-slate-400">{live ? 'Streaming' : `The run is ${run.state}: no more output`}</span>
            <Button onPress={onClose}>Close</Button>
          </div>
          <div role="group" aria-label="Sandbox" className="mb-2 flex flex-wrap gap-1">
            {['', ...run.sandboxes.map((s) => s.repo)].map((name) => (
              <button
                key={name || '(all)'}
                type="button"
                aria-pressed={sandbox === name}
                onClick={() => setSandbox(name)}
                className={`rounded px-2 py-1 text-xs ${sandbox === name ? 'bg-slate-800 text-white dark:bg-slate-200 dark:text-slate-900' : 'border border-slate-300 dark:border-slate-600'}`}
              >
                {name || 'All sandboxes'}
              </button>
            ))}
          </div>
          {indexes.length === 0 ? <p className="text-sm text-slate-600 dark:text-slate-400">{snapshot ? 'No sandbox output yet.' : 'Connecting…'}</p> : null}
          <LogView runId={run.id} label="Sandbox output" events={events} indexes={indexes} terminal className="min-h-0 flex-1" />
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
