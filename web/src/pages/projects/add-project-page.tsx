import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { type ReactNode, useId, useMemo, useState } from 'react';
import { ApiError } from '../../api/client';
import { useServices } from '../../app/context';
import { Button, PageTitle, PanelError } from '../../components/ui';
import type { CandidateProbeAnswer, DiagnosticsSnapshot } from '../diagnostics/diagnostics-types';
import {
  type AddProjectForm, type Candidate, type FormErrors, type FormField, type SavePlan, type SecretWrite, candidateKey, candidatesOf, emptyForm, withTracker, randomSecret, savePlan, validateForm,
} from './add-project';
import { type ConfigDocument, PLATFORMS, PLATFORM_NAMES, pipelinesOf, projectsOf } from './config-projects';
import { CONFIG_KEY, FINDINGS_KEY, useMayAddProject } from './projects-page';
import { WebhookInstructions } from './webhook-instructions';

type Checks = Record<string, { running: true } | { running: false; answer: CandidateProbeAnswer } | { running: false; failure: string }>;

interface Saved {
  project: string;
  plan: SavePlan;
  warnings: string[];
}

const input = 'w-full rounded border border-slate-300 bg-white px-2 py-1.5 text-sm aria-[invalid=true]:border-red-600 dark:border-slate-600 dark:bg-slate-900';

export function AddProjectPage() {
  const { api } = useServices();
  const mayAdd = useMayAddProject();
  const config = useQuery({ queryKey: CONFIG_KEY, queryFn: ({ signal }) => api.get<ConfigDocument>('/api/config', { signal }) });
  // Only to know whether a platform's webhook secret is configured; unknown counts as configured (nothing is overwritten).
  const diagnostics = useQuery({ queryKey: ['diagnostics', 'connections'], queryFn: ({ signal }) => api.get<DiagnosticsSnapshot>('/api/diagnostics/connections', { signal }), retry: false });
  const [saved, setSaved] = useState<Saved | null>(null);

  return (
    <section className="max-w-3xl">
      <PageTitle>Add project</PageTitle>
      <p className="mb-4 text-sm"><Link to="/projects" className="text-blue-700 underline dark:text-blue-300">Back to projects</Link></p>
      {!mayAdd ? (
        <p role="status" className="rounded border border-slate-300 p-4 text-sm dark:border-slate-700">
          Adding a project needs the permissions config.write, secrets.write and diagnostics.probe; ask an administrator.
        </p>
      ) : config.isPending ? <p role="status">Loading the configuration…</p>
        : config.isError ? <PanelError what="the configuration" error={config.error} retry={() => void config.refetch()} />
          : saved ? <SavedPanel saved={saved} onAnother={() => setSaved(null)} />
            : <ProjectForm config={config.data} webhooks={diagnostics.data?.webhooks ?? null} onSaved={setSaved} />}
    </section>
  );
}

function ProjectForm({ config, webhooks, onSaved }: { config: ConfigDocument; webhooks: DiagnosticsSnapshot['webhooks'] | null; onSaved: (saved: Saved) => void }) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<AddProjectForm>(emptyForm);
  const [shown, setShown] = useState<FormErrors>({});
  const [checks, setChecks] = useState<Checks>({});
  const [busy, setBusy] = useState<null | 'probing' | 'saving'>(null);
  const [saveError, setSaveError] = useState<{ message: string; details: string[]; leftOver: string[] } | null>(null);
  const existing = useMemo(() => projectsOf(config).map((p) => p.name), [config]);
  const pipelines = useMemo(() => pipelinesOf(config), [config]);
  const context = { existingProjects: existing, pipelines };
  const candidates = candidatesOf(form);
  // The token fields are uncontrolled (no value prop): React then never mirrors a secret into a DOM attribute.
  const set = <K extends FormField>(field: K, value: AddProjectForm[K]) => {
    setForm((f) => ({ ...f, [field]: value }));
    setShown((e) => ({ ...e, [field]: undefined }));
  };

  /** Probes every connection not already proven with exactly these inputs; true when all work. */
  async function probeAll(): Promise<boolean> {
    const errors = validateForm(form, context);
    setShown(errors);
    if (Object.keys(errors).length > 0) return false;
    setBusy('probing');
    const results = await Promise.all(candidates.map(async (candidate) => {
      const key = candidateKey(candidate);
      const known = checks[key];
      if (known && !known.running && 'answer' in known && known.answer.ok) return { ok: true, error: '' };
      setChecks((c) => ({ ...c, [key]: { running: true } }));
      try {
        const answer = await api.send<CandidateProbeAnswer>('POST', '/api/diagnostics/probe-candidate', candidate.body);
        setChecks((c) => ({ ...c, [key]: { running: false, answer } }));
        return { ok: answer.ok, error: answer.error ?? '' };
      } catch (error) {
        setChecks((c) => ({ ...c, [key]: { running: false, failure: (error as Error).message } }));
        return { ok: false, error: (error as Error).message };
      }
    }));
    setBusy(null);
    // A refusal is shown next to the field it is about as well: a refused credential at its token, anything else at the address.
    const failed: FormErrors = {};
    results.forEach((r, i) => {
      if (r.ok) return;
      const candidate = candidates[i]!;
      const field: FormField = (candidate.field === 'repositories' || candidate.field === 'organizationUrl') && /\b(401|403)\b/.test(r.error) ? 'token' : candidate.field;
      failed[field] ??= `${candidate.label} fails: ${r.error}`;
    });
    setShown((e) => ({ ...e, ...failed }));
    return results.every((r) => r.ok);
  }

  async function save() {
    setSaveError(null);
    if (!(await probeAll())) return;
    setBusy('saving');
    const configured = webhooks?.find((w) => w.platform === form.tracker)?.secretConfigured ?? true;
    const taken = [...(config.secrets?.stored ?? []), ...(config.secrets?.file ?? [])];
    const plan = savePlan(form, { takenSecretNames: taken, webhookSecretConfigured: configured, newWebhookSecret: randomSecret() });
    const written: SecretWrite[] = [];
    const warnings: string[] = [];
    let writing = '';
    try {
      for (const secret of plan.secrets) {
        writing = `secret ${secret.name}`;
        await api.send('PUT', `/api/secrets/${encodeURIComponent(secret.name)}`, { value: secret.value });
        written.push(secret);
      }
      for (const setting of plan.settings) {
        writing = `setting ${setting.key}`;
        const answer = await api.send<{ warnings?: { field: string; reason: string }[] }>('PUT', `/api/config/settings/${encodeURIComponent(setting.key)}`, { value: setting.value });
        for (const w of answer?.warnings ?? []) warnings.push(`${w.field}: ${w.reason}`);
      }
    } catch (error) {
      // Nothing half-saved: the secrets made for this project go again (their names were new, so nothing else used them).
      const leftOver: string[] = [];
      for (const secret of written.reverse()) {
        await api.send('DELETE', `/api/secrets/${encodeURIComponent(secret.name)}`).catch(() => leftOver.push(secret.name));
      }
      const details = refusalDetails(error);
      setSaveError({ message: details.length > 0 ? `the server refused ${writing}` : (error as Error).message, details, leftOver });
      if (details.some((d) => /(^|\.)agent\.|^sandbox\./.test(d))) {
        setShown((e) => ({ ...e, defaultPipeline: 'This pipeline cannot run for the project yet (see below): choose a command pipeline, or configure a model and sandbox first.' }));
      }
      setBusy(null);
      return;
    }
    await Promise.all([queryClient.invalidateQueries({ queryKey: CONFIG_KEY }), queryClient.invalidateQueries({ queryKey: FINDINGS_KEY }), queryClient.invalidateQueries({ queryKey: ['diagnostics'] })]);
    setBusy(null);
    onSaved({ project: form.name.trim(), plan, warnings });
  }

  const labelsNotStatuses = form.tracker === 'platform-a' || form.tracker === 'platform-b';
  return (
    <form
      noValidate
      aria-label="Add project"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      className="space-y-5"
    >
      <Field label="Project name" field="name" errors={shown} hint="How runs, findings and settings name it, e.g. shop.">
        {(props) => <input {...props} className={input} value={form.name} onChange={(e) => set('name', e.target.value)} autoComplete="off" />}
      </Field>

      <fieldset className="space-y-2">
        <legend className="text-sm font-medium">Tracker</legend>
        <div className="flex flex-wrap gap-4">
          {PLATFORMS.map((p) => (
            <label key={p} className="flex items-center gap-1.5 text-sm">
              <input type="radio" name="tracker" value={p} checked={form.tracker === p} onChange={() => setForm((f) => withTracker(f, p))} />
              {PLATFORM_NAMES[p]}
            </label>
          ))}
        </div>
      </fieldset>

      {form.tracker === 'platform-c' ? (
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Organization URL" field="organizationUrl" errors={shown} hint="e.g. https://dev.azure.com/acme">
            {(props) => <input {...props} className={input} type="url" value={form.organizationUrl} onChange={(e) => set('organizationUrl', e.target.value)} />}
          </Field>
          <Field label="Team project" field="teamProject" errors={shown} hint="Where the work items live.">
            {(props) => <input {...props} className={input} value={form.teamProject} onChange={(e) => set('teamProject', e.target.value)} />}
          </Field>
        </div>
      ) : null}

      {form.tracker === 'platform-d' ? (
        <>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label="Jira site URL" field="siteUrl" errors={shown} hint="e.g. https://acme.atlassian.net">
              {(props) => <input {...props} className={input} type="url" value={form.siteUrl} onChange={(e) => set('siteUrl', e.target.value)} />}
            </Field>
            <Field label="Jira project key" field="projectKey" errors={shown} hint="e.g. SHOP">
              {(props) => <input {...props} className={input} value={form.projectKey} onChange={(e) => set('projectKey', e.target.value.toUpperCase())} />}
            </Field>
          </div>
          <Field label="Jira credentials" field="jiraCredentials" errors={shown} hint="user:api-token (Cloud) or a personal access token (Data Center). Stored as a secret, never shown again.">
            {(props) => <input {...props} className={input} type="password" autoComplete="off" onChange={(e) => set('jiraCredentials', e.target.value)} />}
          </Field>
          <fieldset className="space-y-2">
            <legend className="text-sm font-medium">Where the code lives</legend>
            <div className="flex flex-wrap gap-4">
              {(['platform-a', 'platform-b', 'platform-c'] as const).map((p) => (
                <label key={p} className="flex items-center gap-1.5 text-sm">
                  <input type="radio" name="codeHost" value={p} checked={form.codeHost === p} onChange={() => set('codeHost', p)} />
                  {PLATFORM_NAMES[p]}
                </label>
              ))}
            </div>
          </fieldset>
        </>
      ) : null}

      <Field label="Repository URLs" field="repositories" errors={shown} hint="One per line, as you open them in the browser, e.g. https://github.com/acme/shop.">
        {(props) => <textarea {...props} rows={3} className={input} value={form.repositories} onChange={(e) => set('repositories', e.target.value)} />}
      </Field>
      <Field label="API URL (optional)" field="apiUrl" errors={shown} hint="Only for a self-hosted host: GitHub Enterprise (https://host/api/v3), a GitLab server (https://host/api/v4).">
        {(props) => <input {...props} className={input} type="url" value={form.apiUrl} onChange={(e) => set('apiUrl', e.target.value)} />}
      </Field>
      <Field
        label={form.tracker === 'platform-c' || (form.tracker === 'platform-d' && form.codeHost === 'platform-c') ? 'Personal access token' : 'Access token'}
        field="token" errors={shown}
        hint="Read and write access to the repositories (and their issues); the server clones, pushes and opens pull requests with it. Stored as a secret, never shown again."
      >
        {(props) => <input {...props} className={input} type="password" autoComplete="off" onChange={(e) => set('token', e.target.value)} />}
      </Field>

      <div className="grid gap-4 sm:grid-cols-2">
        <Field label={labelsNotStatuses ? 'Trigger labels' : 'Trigger statuses'} field="trigger" errors={shown} hint={labelsNotStatuses ? 'A ticket given one of these labels starts a run; comma-separated.' : 'A ticket moved into one of these statuses starts a run; comma-separated.'}>
          {(props) => <input {...props} className={input} value={form.trigger} onChange={(e) => set('trigger', e.target.value)} />}
        </Field>
        <Field label="Pipeline" field="defaultPipeline" errors={shown} hint="What a triggered ticket runs; code is the coding agent.">
          {(props) => (
            <select {...props} className={input} value={form.defaultPipeline} onChange={(e) => set('defaultPipeline', e.target.value)}>
              {pipelines.map((p) => <option key={p} value={p}>{p}</option>)}
            </select>
          )}
        </Field>
      </div>

      <label className="flex items-start gap-2 text-sm">
        <input type="checkbox" className="mt-1" checked={form.polling} onChange={(e) => set('polling', e.target.checked)} />
        <span>
          Poll the tracker every minute instead of receiving webhooks
          <span className="block text-xs text-slate-600 dark:text-slate-400">For a tracker that cannot reach this server (a firewall, a policy against service hooks).</span>
        </span>
      </label>

      <ConnectionChecks candidates={candidates} checks={checks} />

      {saveError ? (
        <div role="alert" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
          <p className="font-medium">Not saved: {saveError.message}</p>
          {saveError.details.length > 0 ? <ul className="mt-1 list-disc pl-5">{saveError.details.map((d) => <li key={d}>{d}</li>)}</ul> : null}
          {saveError.leftOver.length > 0 ? <p className="mt-1">These secrets were stored and could not be removed again; delete them on the Secrets page: {saveError.leftOver.join(', ')}.</p> : null}
        </div>
      ) : null}

      <div className="flex flex-wrap gap-2">
        <Button type="button" isDisabled={busy !== null} onPress={() => void probeAll()}>{busy === 'probing' ? 'Checking…' : 'Check connections'}</Button>
        <Button type="submit" tone="primary" isDisabled={busy !== null}>{busy === 'saving' ? 'Saving…' : 'Save project'}</Button>
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">Saving checks each connection first and saves nothing while one fails.</p>
    </form>
  );
}

function ConnectionChecks({ candidates, checks }: { candidates: Candidate[]; checks: Checks }) {
  const rows = candidates.map((c) => ({ candidate: c, check: checks[candidateKey(c)] })).filter((r) => r.check);
  if (rows.length === 0) return null;
  return (
    <section aria-label="Connection checks" className="rounded border border-slate-200 p-3 dark:border-slate-800">
      <h2 className="mb-2 text-base font-semibold">Connection checks</h2>
      <ul className="space-y-1 text-sm" aria-live="polite">
        {rows.map(({ candidate, check }) => (
          <li key={candidateKey(candidate)} data-row tabIndex={-1}>
            <span className="font-medium">{candidate.label}</span>:{' '}
            {check!.running ? 'checking…'
              : 'failure' in check! ? <span className="text-red-800 dark:text-red-300">could not check: {check.failure}</span>
                : check!.answer.ok ? <span className="text-green-800 dark:text-green-300">works ({check!.answer.latencyMs} ms)</span>
                  : <span className="text-red-800 dark:text-red-300">fails: {check!.answer.error}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

function SavedPanel({ saved, onAnother }: { saved: Saved; onAnother: () => void }) {
  return (
    <div className="space-y-4">
      <div role="status" className="rounded border border-green-300 bg-green-50 p-4 text-sm text-green-900 dark:border-green-800 dark:bg-green-950 dark:text-green-100">
        <p className="font-medium">Project {saved.project} is saved and in force.</p>
        <p>Stored: {saved.plan.secrets.map((s) => `secret ${s.name}`).concat(saved.plan.settings.map((s) => `setting ${s.key}`)).join(', ')}. Each is a change you can revert on the Changes page.</p>
        {saved.warnings.length > 0 ? <ul className="mt-1 list-disc pl-5">{saved.warnings.map((w) => <li key={w}>{w}</li>)}</ul> : null}
      </div>
      {saved.plan.webhook ? <WebhookInstructions webhook={saved.plan.webhook} /> : (
        <p className="text-sm">The server polls the tracker every minute for tickets carrying the trigger; nothing needs registering on the tracker.</p>
      )}
      <div className="flex flex-wrap gap-2">
        <Link to="/projects" className="inline-flex items-center rounded bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800 dark:bg-blue-500 dark:text-slate-950">See the projects</Link>
        <Button onPress={onAnother}>Add another project</Button>
      </div>
    </div>
  );
}

function Field({ label, field, errors, hint, children }: {
  label: string;
  field: FormField;
  errors: FormErrors;
  hint?: string;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby': string; name: string }) => ReactNode;
}) {
  const id = useId();
  const error = errors[field];
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium">{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': `${id}-hint ${id}-error`, name: field })}
      {hint ? <p id={`${id}-hint`} className="text-xs text-slate-600 dark:text-slate-400">{hint}</p> : null}
      <p id={`${id}-error`} className="text-sm text-red-800 dark:text-red-300">{error ?? ''}</p>
    </div>
  );
}

/** What a refusal names: the settings route's findings, the secrets route's code. */
function refusalDetails(error: unknown): string[] {
  if (!(error instanceof ApiError) || !error.body) return [];
  const findings = error.body['findings'];
  if (Array.isArray(findings)) return findings.map((f: { field?: string; reason?: string }) => `${f.field ?? ''}: ${f.reason ?? ''}`);
  const fields = error.body['fields'];
  if (Array.isArray(fields)) return fields.map(String);
  return [];
}

