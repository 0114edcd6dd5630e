import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useId, useState } from 'react';
import { useServices } from '../../app/context';
import { usePermission } from '../../app/identity';
import { dialogRoute } from '../../app/router';
import { Button, EmptyState, PageTitle, PanelError, formatCost, formatTime } from '../../components/ui';
import { type Conversation, type ConversationList, type DialogDraft, type FileAnswer, type SendAnswer, ticketHref } from './dialog-types';

const LIST_KEY = ['dialog', 'list'] as const;
const conversationKey = (id: string) => ['dialog', 'conversation', id] as const;

/**
 * The design dialogue: talk with the model about a project; it reads the repositories and
 * proposes ticket drafts, shown side by side; choose some and file them in the project's tracker
 * (and, with runs.control, start work on them). Your earlier conversations are listed beside it.
 */
export function DialogPage() {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { c: openId } = dialogRoute.useSearch();
  const list = useQuery({ queryKey: LIST_KEY, queryFn: ({ signal }) => api.get<ConversationList>('/api/dialog', { signal }) });
  const conversation = useQuery({
    queryKey: conversationKey(openId ?? ''),
    queryFn: ({ signal }) => api.get<Conversation>(`/api/dialog/${openId}`, { signal }),
    enabled: openId !== undefined,
  });
  const projects = list.data?.projects ?? [];
  const [project, setProject] = useState('');
  useEffect(() => {
    if (conversation.data) setProject(conversation.data.project);
    else if (!openId && project === '' && projects.length > 0) setProject(projects[0]!);
  }, [conversation.data, openId, projects, project]);

  const [message, setMessage] = useState('');
  const send = useMutation({
    mutationFn: (text: string) => api.send<SendAnswer>('POST', '/api/dialog', { project, message: text, ...(openId ? { conversationId: openId } : {}) }),
    onSuccess: async (answer) => {
      setMessage('');
      await queryClient.invalidateQueries({ queryKey: ['dialog'] });
      if (answer.conversationId !== openId) await navigate({ to: '/dialog', search: { c: answer.conversationId } });
    },
  });

  return (
    <section>
      <PageTitle actions={openId ? <Button onPress={() => void navigate({ to: '/dialog', search: {} })}>New conversation</Button> : null}>Design</PageTitle>
      <p className="mb-4 max-w-3xl text-sm text-slate-700 dark:text-slate-300">
        Talk about a change with the model: it reads the project's repositories (it changes nothing) and proposes tickets with acceptance criteria.
        Choose the drafts you want and file them in the project's tracker.
      </p>
      <div className="grid gap-6 lg:grid-cols-[16rem_1fr]">
        <ConversationsList list={list.data} error={list.error} pending={list.isPending} openId={openId} retry={() => void list.refetch()} />
        <div className="min-w-0 space-y-6">
          <div>
            <label htmlFor="dialog-project" className="mb-1 block text-sm font-medium">Project</label>
            <select
              id="dialog-project"
              value={project}
              disabled={openId !== undefined || projects.length === 0}
              onChange={(e) => setProject(e.target.value)}
              className="rounded border border-slate-300 bg-white px-2 py-1 text-sm disabled:opacity-70 dark:border-slate-600 dark:bg-slate-900"
            >
              {projects.length === 0 ? <option value="">No project configured</option> : null}
              {projects.map((p) => <option key={p} value={p}>{p}</option>)}
            </select>
            {openId ? <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">A conversation stays with its project; start a new one for another.</p> : null}
          </div>

          {openId && conversation.isPending ? <p role="status">Loading the conversation…</p> : null}
          {conversation.isError ? <PanelError what="the conversation" error={conversation.error} retry={() => void conversation.refetch()} /> : null}
          <Messages conversation={openId ? conversation.data ?? null : null} sending={send.isPending ? send.variables ?? null : null} />

          <form
            className="space-y-2"
            onSubmit={(e) => {
              e.preventDefault();
              if (message.trim() !== '' && project !== '') send.mutate(message);
            }}
          >
            <label htmlFor="dialog-message" className="block text-sm font-medium">Message</label>
            <textarea
              id="dialog-message"
              rows={4}
              value={message}
              onChange={(e) => setMessage(e.target.value)}
              placeholder="Describe the change you have in mind, or ask about the code"
              className="block w-full rounded border border-slate-300 bg-white p-2 text-sm dark:border-slate-600 dark:bg-slate-900"
            />
            <div className="flex items-center gap-3">
              <Button tone="primary" type="submit" isDisabled={send.isPending || message.trim() === '' || project === ''}>Send</Button>
              {send.isPending ? <span role="status" className="text-sm">The model is reading the code…</span> : null}
            </div>
            {send.isError ? <PanelError what="an answer" error={send.error} /> : null}
          </form>

          {conversation.data && openId ? <Drafts conversation={conversation.data} /> : null}
        </div>
      </div>
    </section>
  );
}

function ConversationsList({ list, error, pending, openId, retry }: { list: ConversationList | undefined; error: unknown; pending: boolean; openId: string | undefined; retry: () => void }) {
  return (
    <nav aria-label="Your conversations">
      <h2 className="mb-2 text-lg font-semibold">Your conversations</h2>
      {pending ? <p role="status" className="text-sm">Loading…</p> : null}
      {error ? <PanelError what="your conversations" error={error} retry={retry} /> : null}
      {list && list.items.length === 0 ? <p className="text-sm text-slate-600 dark:text-slate-400">None yet: your first message starts one.</p> : null}
      <ul className="space-y-1">
        {list?.items.map((c) => (
          <li key={c.id}>
            <Link
              to="/dialog"
              search={{ c: c.id }}
              aria-current={c.id === openId ? 'page' : undefined}
              className={`block rounded px-2 py-1 text-sm hover:bg-slate-200 dark:hover:bg-slate-800 ${c.id === openId ? 'bg-slate-200 font-semibold dark:bg-slate-800' : ''}`}
            >
              <span className="block truncate">{c.title}</span>
              <span className="block text-xs text-slate-600 dark:text-slate-400">{c.project} · <time dateTime={c.updatedAt}>{formatTime(c.updatedAt)}</time></span>
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Messages({ conversation, sending }: { conversation: Conversation | null; sending: string | null }) {
  const messages = conversation?.messages ?? [];
  if (messages.length === 0 && sending === null) {
    return <EmptyState title="No messages yet"><p>Say what you would like to change; the model answers with what it finds in the code, or with ticket drafts.</p></EmptyState>;
  }
  return (
    <div>
      <h2 className="mb-2 text-lg font-semibold">Conversation</h2>
      <ol aria-label="Messages" className="space-y-3">
        {messages.map((m) => (
          <li key={m.seq} className={`rounded border p-3 text-sm ${m.role === 'person' ? 'border-blue-200 bg-blue-50 dark:border-blue-900 dark:bg-blue-950' : 'border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900'}`}>
            <p className="mb-1 text-xs font-medium text-slate-700 dark:text-slate-300">
              {m.role === 'person' ? 'You' : m.kind === 'proposal' ? 'Model (proposed drafts)' : 'Model'} · <time dateTime={m.at}>{formatTime(m.at)}</time>
            </p>
            <p className="whitespace-pre-wrap break-words">{m.text}</p>
          </li>
        ))}
        {sending !== null ? (
          <li className="rounded border border-blue-200 bg-blue-50 p-3 text-sm dark:border-blue-900 dark:bg-blue-950">
            <p className="mb-1 text-xs font-medium text-slate-700 dark:text-slate-300">You (sending)</p>
            <p className="whitespace-pre-wrap break-words">{sending}</p>
          </li>
        ) : null}
      </ol>
      {conversation ? (
        <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
          {conversation.usage.modelCalls} model calls, {conversation.usage.inputTokens + conversation.usage.outputTokens} tokens, {formatCost(conversation.usage.costUsd)}
        </p>
      ) : null}
    </div>
  );
}

function Drafts({ conversation }: { conversation: Conversation }) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const mayStart = usePermission('runs.control');
  const [chosen, setChosen] = useState<ReadonlySet<number>>(new Set());
  const [start, setStart] = useState(false);
  const file = useMutation({
    mutationFn: () => api.send<FileAnswer>('POST', `/api/dialog/${conversation.id}/file`, { tickets: [...chosen].sort((a, b) => a - b), start: mayStart && start }),
    onSuccess: async () => {
      setChosen(new Set());
      await queryClient.invalidateQueries({ queryKey: conversationKey(conversation.id) });
    },
  });
  if (conversation.drafts.length === 0) return null;
  const toggle = (index: number, on: boolean) => setChosen((prev) => {
    const next = new Set(prev);
    if (on) next.add(index);
    else next.delete(index);
    return next;
  });
  return (
    <section aria-labelledby="dialog-drafts">
      <h2 id="dialog-drafts" className="mb-2 text-lg font-semibold">Drafts</h2>
      <ul aria-label="Drafts" className="grid gap-4 md:grid-cols-2 xl:grid-cols-3">
        {conversation.drafts.map((d) => <DraftCard key={d.index} draft={d} chosen={chosen.has(d.index)} onChoose={(on) => toggle(d.index, on)} />)}
      </ul>
      {conversation.drafts.some((d) => d.filed === null) ? (
      <div className="mt-4 flex flex-wrap items-center gap-4">
        <Button tone="primary" isDisabled={chosen.size === 0 || file.isPending} onPress={() => file.mutate()}>File tickets</Button>
        {mayStart ? (
          <label className="inline-flex items-center gap-2 text-sm">
            <input type="checkbox" checked={start} onChange={(e) => setStart(e.target.checked)} />
            Start work
          </label>
        ) : null}
        {file.isPending ? <span role="status" className="text-sm">Filing…</span> : null}
      </div>
      ) : null}
      {file.isError ? <div className="mt-2"><PanelError what="the tickets filed" error={file.error} /></div> : null}
      {file.data ? <FiledSummary answer={file.data} /> : null}
    </section>
  );
}

function DraftCard({ draft, chosen, onChoose }: { draft: DialogDraft; chosen: boolean; onChoose: (on: boolean) => void }) {
  const titleId = useId();
  const href = draft.filed ? ticketHref(draft.filed.url) : null;
  return (
    <li aria-labelledby={titleId} className={`flex flex-col rounded border p-3 text-sm ${chosen ? 'border-blue-500 ring-2 ring-blue-500' : 'border-slate-200 dark:border-slate-800'} bg-white dark:bg-slate-900`}>
      <h3 id={titleId} className="mb-1 font-semibold">{draft.title}</h3>
      <p className="mb-2 text-xs text-slate-600 dark:text-slate-400">Draft {draft.index + 1}{draft.labels.length > 0 ? ` · ${draft.labels.join(', ')}` : ''}</p>
      <p className="mb-2 whitespace-pre-wrap break-words">{draft.body}</p>
      <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-700 dark:text-slate-300">Acceptance criteria</h4>
      <ul className="mb-3 list-disc pl-5">
        {draft.criteria.map((c, i) => <li key={i}>{c}</li>)}
      </ul>
      <div className="mt-auto">
        {draft.filed ? (
          <p>Filed as ticket {href ? <a href={href} target="_blank" rel="noreferrer" className="text-blue-800 underline dark:text-blue-300">{draft.filed.ticket}</a> : draft.filed.ticket}{draft.filed.started ? ' (work started)' : ''}</p>
        ) : (
          <label className="inline-flex items-center gap-2">
            <input type="checkbox" checked={chosen} onChange={(e) => onChoose(e.target.checked)} />
            Choose “{draft.title}”
          </label>
        )}
      </div>
    </li>
  );
}

function FiledSummary({ answer }: { answer: FileAnswer }) {
  return (
    <div role="status" className="mt-3 text-sm">
      {answer.filed.length > 0 ? (
        <>
          <p className="font-medium">Filed:</p>
          <ul aria-label="Filed tickets" className="list-disc pl-5">
            {answer.filed.map((f) => {
              const href = ticketHref(f.url);
              return (
                <li key={f.index}>
                  Draft {f.index + 1}: ticket {href ? <a href={href} target="_blank" rel="noreferrer" className="text-blue-800 underline dark:text-blue-300">{f.ticket}</a> : f.ticket}
                  {f.alreadyFiled ? ' (filed before)' : ''}{f.started ? ', work started' : ''}
                </li>
              );
            })}
          </ul>
        </>
      ) : null}
      {answer.errors.map((e) => <p key={e.index} className="text-red-800 dark:text-red-300">{e.error}</p>)}
    </div>
  );
}
