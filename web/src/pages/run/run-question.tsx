import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { ApiError } from '../../api/client';
import type { Run } from '../../api/types';
import { useServices } from '../../app/context';
import { usePermission } from '../../app/identity';
import { Button, PanelError, formatTime } from '../../components/ui';
import { errorText } from './run-actions';

export interface RunQuestion {
  kind: 'question' | 'contradiction' | 'not-implementable';
  question: string;
  askedAt: string;
  answer: string | null;
  answeredBy: string | null;
  answerSource: string | null;
  answeredAt: string | null;
  resumedRunId: string | null;
}

const KIND_TEXT: Record<RunQuestion['kind'], string> = {
  question: 'The agent handed the ticket back with a question',
  contradiction: 'The agent found a contradiction in the ticket',
  'not-implementable': 'The agent judged the ticket not implementable as written',
};

/** A parked run's question (GET /api/runs/:id/question) and, with runs.control, the answer box. */
export function RunQuestionPanel({ run }: { run: Run }) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const canAnswer = usePermission('runs.control');
  const key = ['run', run.id, 'question'];
  const query = useQuery({
    queryKey: key,
    queryFn: () => api.get<{ question: RunQuestion | null }>(`/api/runs/${encodeURIComponent(run.id)}/question`),
  });
  const [answer, setAnswer] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: true; run: Run } | { ok: false; conflict: boolean; text: string } | null>(null);
  const fieldId = useId();

  if (query.error) return <div className="mt-6"><PanelError what="the run's question" error={query.error} retry={() => void query.refetch()} /></div>;
  const q = query.data?.question;
  if (!q) return null;

  const submit = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      const res = await api.send<{ run: Run }>('POST', `/api/runs/${encodeURIComponent(run.id)}/answer`, { answer });
      setOutcome({ ok: true, run: res.run });
      setAnswer('');
    } catch (e) {
      setOutcome({ ok: false, conflict: e instanceof ApiError && e.status === 409, text: errorText(e) });
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: key, exact: true });
    }
  };

  const open = q.answeredAt === null && run.state === 'parked';
  return (
    <section aria-labelledby="question-heading" className="mt-6 rounded border border-amber-300 bg-amber-50 p-4 dark:border-amber-800 dark:bg-amber-950/40">
      <h2 id="question-heading" className="text-lg font-semibold">{KIND_TEXT[q.kind]}</h2>
      <p className="text-xs text-slate-600 dark:text-slate-400">Asked {formatTime(q.askedAt)}</p>
      <blockquote className="mt-2 border-l-4 border-amber-400 pl-3 text-sm whitespace-pre-wrap">{q.question}</blockquote>
      {q.answeredAt ? (
        <p className="mt-3 text-sm">
          {q.answer !== null ? <>Answered by {q.answeredBy ?? 'someone'} ({q.answerSource}) {formatTime(q.answeredAt)}: <q>{q.answer}</q></> : <>Closed by a retry ({q.answeredBy ?? 'someone'}) {formatTime(q.answeredAt)}.</>}
          {q.resumedRunId ? <> · <Link to="/runs/$runId" params={{ runId: q.resumedRunId }} search={{}} className="text-blue-700 underline dark:text-blue-300">the run that resumed the ticket</Link></> : null}
        </p>
      ) : null}
      {open && canAnswer && q.kind === 'not-implementable' ? (
        <p className="mt-3 text-sm">This verdict takes no answer: change the ticket, then use &ldquo;Retry run&rdquo;.</p>
      ) : null}
      {open && canAnswer && q.kind !== 'not-implementable' ? (
        <form className="mt-3 space-y-2" onSubmit={(e) => { e.preventDefault(); if (answer.trim()) void submit(); }}>
          <label htmlFor={fieldId} className="block text-sm font-medium">Your answer</label>
          <textarea
            id={fieldId}
            value={answer}
            onChange={(e) => setAnswer(e.target.value)}
            rows={4}
            maxLength={20_000}
            className="w-full rounded border border-slate-300 bg-white p-2 text-sm dark:border-slate-600 dark:bg-slate-900"
          />
          <Button type="submit" tone="primary" isDisabled={busy || !answer.trim()}>{busy ? 'Sending…' : 'Answer'}</Button>
        </form>
      ) : null}
      {outcome?.ok ? (
        <p role="status" className="mt-3 text-sm">
          Answered: the ticket resumes in <Link to="/runs/$runId" params={{ runId: outcome.run.id }} search={{}} className="text-blue-700 underline dark:text-blue-300">a new run</Link>.
        </p>
      ) : null}
      {outcome && !outcome.ok ? (
        <p role="alert" className="mt-3 rounded bg-red-50 p-2 text-sm text-red-900 dark:bg-red-950 dark:text-red-100">
          {outcome.conflict ? 'Not sent: this question was already answered (or the run moved on). ' : 'The answer was not sent. '}{outcome.text}
        </p>
      ) : null}
    </section>
  );
}
