import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import type { CriterionVerdict, Run, RunCriterion } from '../../api/types';
import { useServices } from '../../app/context';
import { usePermission } from '../../app/identity';
import { Button, formatTime } from '../../components/ui';
import { errorText } from './run-actions';

export const VERDICT_TEXT: Record<CriterionVerdict, string> = { met: 'Met', unmet: 'Unmet', not_applicable: 'Not applicable' };
const VERDICT_TONE: Record<CriterionVerdict | 'none', string> = {
  met: 'bg-green-100 text-green-900 dark:bg-green-900 dark:text-green-100',
  unmet: 'bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100',
  not_applicable: 'bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100',
  none: 'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
};

function Verdict({ verdict }: { verdict: CriterionVerdict | null }) {
  return <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium whitespace-nowrap ${VERDICT_TONE[verdict ?? 'none']}`}>{verdict ? VERDICT_TEXT[verdict] : 'Not reported'}</span>;
}

/**
 * The ticket's acceptance criteria (contract "Acceptance criteria and judging"): id, text, the
 * agent's verdict and evidence, and a person's judgement; with runs.control a "Judge" button per
 * criterion. A run without criteria shows nothing. A judgement never changes the run's state.
 */
export function RunCriteria({ run }: { run: Run }) {
  const canJudge = usePermission('runs.control');
  const [judging, setJudging] = useState<RunCriterion | null>(null);
  const criteria = run.criteria ?? [];
  if (criteria.length === 0) return null;
  const open = criteria.filter((c) => c.verdict === null || c.verdict === 'unmet').length;
  return (
    <section aria-labelledby="criteria-heading" className="mt-6">
      <h2 id="criteria-heading" className="mb-1 text-lg font-semibold">Acceptance criteria</h2>
      <p className="mb-2 text-sm text-slate-600 dark:text-slate-400">
        {criteria.length} from the ticket; {open === 0 ? 'all met or not applicable, as the agent reported.' : `${open} unmet or not reported by the agent.`}
        {canJudge ? ' A judgement records your verdict beside the agent\'s; it does not change the run.' : ''}
      </p>
      <div className="overflow-x-auto">
        <table aria-labelledby="criteria-heading" className="w-full border-collapse text-left text-sm">
          <thead>
            <tr className="border-b border-slate-300 dark:border-slate-700">
              <th scope="col" className="px-2 py-1">Id</th>
              <th scope="col" className="px-2 py-1">Criterion</th>
              <th scope="col" className="px-2 py-1">Verdict</th>
              <th scope="col" className="px-2 py-1">Evidence</th>
              <th scope="col" className="px-2 py-1">Judgement</th>
              {canJudge ? <th scope="col" className="px-2 py-1"><span className="sr-only">Actions</span></th> : null}
            </tr>
          </thead>
          <tbody>
            {criteria.map((c) => (
              <tr key={c.id} className="border-b border-slate-200 align-top dark:border-slate-800">
                <th scope="row" className="px-2 py-1 font-mono font-normal">{c.id}</th>
                <td className="px-2 py-1 break-words">{c.text}</td>
                <td className="px-2 py-1"><Verdict verdict={c.verdict} /></td>
                <td className="px-2 py-1 break-words whitespace-pre-wrap text-slate-700 dark:text-slate-300">{c.evidence ?? '—'}</td>
                <td className="px-2 py-1">
                  {c.judgement ? (
                    <div>
                      <Verdict verdict={c.judgement.verdict} />
                      <p className="mt-1 break-words">{c.judgement.reason}</p>
                      <p className="text-xs text-slate-600 dark:text-slate-400">by {c.judgement.by}, {formatTime(c.judgement.at)}</p>
                    </div>
                  ) : '—'}
                </td>
                {canJudge ? (
                  <td className="px-2 py-1">
                    <Button aria-label={`Judge ${c.id}`} onPress={() => setJudging(c)}>Judge</Button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {judging ? <JudgeDialog run={run} criterion={judging} onClose={() => setJudging(null)} /> : null}
    </section>
  );
}

/** Asks for a verdict and a reason (required), then POSTs the judgement; the run comes back with it. */
function JudgeDialog({ run, criterion, onClose }: { run: Run; criterion: RunCriterion; onClose: () => void }) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const [verdict, setVerdict] = useState<CriterionVerdict>(criterion.judgement?.verdict ?? (criterion.verdict === 'met' ? 'unmet' : 'met'));
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const reasonId = useId();
  const verdictName = useId();

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const path = `/api/runs/${encodeURIComponent(run.id)}/criteria/${encodeURIComponent(criterion.id)}/judge`;
      const answer = await api.send<{ run: Run }>('POST', path, { verdict, reason });
      queryClient.setQueryData(['run', run.id], answer.run);
      onClose();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <ModalOverlay isOpen onOpenChange={(isOpen) => { if (!isOpen) onClose(); }} isDismissable={!busy} className="fixed inset-0 z-50 flex items-center justify-center bg-black/40 p-4">
      <Modal className="w-full max-w-lg rounded bg-white p-6 shadow-xl dark:bg-slate-900">
        <Dialog className="outline-none">
          <form onSubmit={(e) => { e.preventDefault(); if (reason.trim()) void submit(); }}>
            <Heading slot="title" className="mb-2 text-lg font-semibold">Judge {criterion.id}</Heading>
            <p className="mb-3 text-sm break-words">{criterion.text}</p>
            <p className="mb-3 text-sm">The agent reported: <Verdict verdict={criterion.verdict} /></p>
            <fieldset className="mb-3">
              <legend className="mb-1 text-sm font-medium">Verdict</legend>
              <div className="flex flex-wrap gap-4 text-sm">
                {(Object.keys(VERDICT_TEXT) as CriterionVerdict[]).map((v) => (
                  <label key={v} className="inline-flex items-center gap-1">
                    <input type="radio" name={verdictName} value={v} checked={verdict === v} onChange={() => setVerdict(v)} />
                    {VERDICT_TEXT[v]}
                  </label>
                ))}
              </div>
            </fieldset>
            <label htmlFor={reasonId} className="block text-sm font-medium">Reason (required)</label>
            <textarea
              id={reasonId}
              required
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              rows={3}
              maxLength={2000}
              className="w-full rounded border border-slate-300 bg-white p-2 text-sm dark:border-slate-600 dark:bg-slate-900"
            />
            {error ? <p role="alert" className="mt-3 rounded bg-red-50 p-2 text-sm text-red-900 dark:bg-red-950 dark:text-red-100">{error}</p> : null}
            <div className="mt-4 flex justify-end gap-2">
              <Button onPress={onClose} isDisabled={busy}>Cancel</Button>
              <Button type="submit" tone="primary" isDisabled={busy || !reason.trim()}>{busy ? 'Recording…' : 'Record judgement'}</Button>
            </div>
          </form>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
