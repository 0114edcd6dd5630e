import { Link } from '@tanstack/react-router';
import { ApiError } from '../../api/client';
import type { Finding, Identity, TokenRefusal } from '../../api/types';
import { useRefusal } from '../../app/auth-refusal';
import { useServices } from '../../app/context';
import { useIdentity } from '../../app/identity';
import { Button, EmptyState, PageTitle, PanelError } from '../../components/ui';
import { comparisonRows, mergeFindings, refusalCheck, refusalToShow, scopeAudienceFindings } from './identity-checks';

const PANEL = 'rounded border border-slate-200 p-4 dark:border-slate-800';
const H2 = 'mb-2 text-lg font-semibold';

export function IdentityPage() {
  const { settings, session } = useServices();
  const identity = useIdentity();
  const lastSeen = useRefusal();
  const errorRefusal = identity.error instanceof ApiError ? identity.error.refusal : null;
  const refusal = refusalToShow(errorRefusal, identity.data?.refusal, identity.data?.authenticated ? null : lastSeen);
  const notConfigured = !settings.authority || refusal?.reason === 'not_configured';
  const local = scopeAudienceFindings(settings.scopes, settings.audience);
  const findings = mergeFindings(identity.data?.findings ?? [], local);

  return (
    <section className="space-y-6">
      <PageTitle>Identity</PageTitle>
      {notConfigured ? <NothingAuthenticates /> : null}
      {identity.isPending ? <p role="status">Loading who you are…</p> : null}
      {identity.isError && !errorRefusal ? <PanelError what="your identity" error={identity.error} retry={() => void identity.refetch()} /> : null}
      {refusal && refusal.reason !== 'not_configured' ? (
        <RefusalPanel refusal={refusal} onSignIn={session.enabled ? () => void session.signIn(`${location.pathname}${location.search}`) : undefined} />
      ) : null}
      {identity.data?.authenticated ? <CallerPanel identity={identity.data} userName={session.userName()} /> : null}
      <FindingsPanel findings={findings} refused={Boolean(refusal && refusal.reason !== 'not_configured')} />
      <SettingsPanel />
    </section>
  );
}

function NothingAuthenticates() {
  return (
    <EmptyState title="Nothing authenticates: no token authority is configured.">
      <p>Every caller is let in without a token, and the dashboard does not ask you to sign in. To require sign-in, register the API and the dashboard with your identity provider and set, then restart:</p>
      <pre className="overflow-x-auto rounded bg-slate-100 p-3 text-xs dark:bg-slate-900">{`SERVICE_AUTH_AUTHORITY=https://login.example.com/<tenant>/v2.0   # the OpenID provider (issuer)
SERVICE_AUTH_AUDIENCE=<the API's client id or App ID URI>          # what the API's tokens carry in aud
SERVICE_AUTH_CLIENT_ID=<the dashboard's public client id>          # code flow + PKCE, no secret
SERVICE_AUTH_SCOPES="openid profile offline_access api://<api>/<scope>"
SERVICE_AUTH_REDIRECT_PATH=/signin-callback                        # register https://<host>/signin-callback`}</pre>
      <p>Roles come from the token's role and group claims and the grants on the Access pages. <code>docs/dashboard.md</code> walks through the registration.</p>
    </EmptyState>
  );
}

function RefusalPanel({ refusal, onSignIn }: { refusal: TokenRefusal; onSignIn?: () => void }) {
  const { check, explain } = refusalCheck(refusal.reason);
  const rows = comparisonRows(refusal);
  return (
    <div role="region" aria-labelledby="refusal-title" className="rounded border border-red-300 bg-red-50 p-4 text-sm text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-50">
      <h2 id="refusal-title" className={H2}>Your token was refused by the {check} check</h2>
      <p className="font-medium">{refusal.message || explain}</p>
      <p className="mt-1">{explain}</p>
      {rows.length > 0 ? (
        <table aria-label="What the server expects beside what the token carried" className="mt-3 w-full border-collapse bg-white text-sm text-slate-900 dark:bg-slate-950 dark:text-slate-100">
          <thead className="bg-slate-100 text-left dark:bg-slate-900">
            <tr>
              <th scope="col" className="px-3 py-2">Check</th>
              <th scope="col" className="px-3 py-2">The server expects</th>
              <th scope="col" className="px-3 py-2">The token carried</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.label} data-row tabIndex={-1} className={`border-t border-slate-200 dark:border-slate-800 ${row.refusing ? 'bg-red-100 font-semibold dark:bg-red-900' : ''}`}>
                <th scope="row" className="px-3 py-2 text-left">
                  {row.label}
                  {row.refusing ? <span className="ml-2 rounded bg-red-700 px-1.5 py-0.5 text-xs text-white">refused here</span> : null}
                  {!row.refusing && row.differs ? <span className="ml-2 rounded bg-amber-600 px-1.5 py-0.5 text-xs text-white">differs</span> : null}
                </th>
                <td className="px-3 py-2 break-all"><code>{row.expected}</code></td>
                <td className="px-3 py-2 break-all"><code>{row.presented}</code></td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {onSignIn ? <Button className="mt-3" tone="primary" onPress={onSignIn}>Sign in again</Button> : null}
    </div>
  );
}

function CallerPanel({ identity, userName }: { identity: Identity; userName: string | null }) {
  const roleSources = Array.isArray(identity['roleSources']) ? (identity['roleSources'] as { role: string; via: string; value: string }[]) : null;
  const claims: [string, string[]][] = [
    [identity.roleClaim ?? 'roles', identity.roleClaimValues ?? []],
    [identity.groupClaim ?? 'groups', identity.groupClaimValues ?? []],
  ];
  return (
    <div className={PANEL}>
      <h2 className={H2}>Who you are</h2>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        {userName ? <><dt className="text-slate-600 dark:text-slate-400">Signed in as</dt><dd>{userName}</dd></> : null}
        <dt className="text-slate-600 dark:text-slate-400">Subject</dt><dd className="break-all"><code>{identity.subject}</code></dd>
        <dt className="text-slate-600 dark:text-slate-400">Issuer</dt><dd className="break-all"><code>{identity.issuer}</code></dd>
      </dl>
      <h3 className="mt-4 mb-1 font-semibold">Roles</h3>
      {(identity.roles ?? []).length === 0 ? (
        <p className="text-sm">No role. Every validated caller may read this page; a role comes from a value of the <code>{identity.roleClaim}</code> claim named on the Access pages, a group mapped to a role, or a person grant.</p>
      ) : roleSources ? (
        <ul className="text-sm">{roleSources.map((s) => <li key={`${s.role}-${s.via}-${s.value}`}><strong>{s.role}</strong> via {s.via} <code>{s.value}</code></li>)}</ul>
      ) : (
        <ul aria-label="Roles" className="flex flex-wrap gap-2 text-sm">{(identity.roles ?? []).map((r) => <li key={r} className="rounded bg-slate-200 px-2 py-0.5 dark:bg-slate-800">{r}</li>)}</ul>
      )}
      <h3 className="mt-4 mb-1 font-semibold">Permissions</h3>
      {(identity.permissions ?? []).length === 0 ? <p className="text-sm">None: controls that need one are not shown.</p> : (
        <ul aria-label="Permissions" className="flex flex-wrap gap-2 text-sm">{(identity.permissions ?? []).map((p) => <li key={p}><code className="rounded bg-slate-100 px-1.5 py-0.5 dark:bg-slate-900">{p}</code></li>)}</ul>
      )}
      <h3 className="mt-4 mb-1 font-semibold">Claims the roles are read from</h3>
      <table aria-label="Claim values" className="w-full border-collapse text-sm">
        <thead className="bg-slate-100 text-left dark:bg-slate-900"><tr><th scope="col" className="px-3 py-1">Claim</th><th scope="col" className="px-3 py-1">Values in your token</th></tr></thead>
        <tbody>
          {claims.map(([claim, values]) => (
            <tr key={claim} data-row tabIndex={-1} className="border-t border-slate-200 dark:border-slate-800">
              <th scope="row" className="px-3 py-1 text-left font-normal"><code>{claim}</code></th>
              <td className="px-3 py-1">{values.length === 0 ? <span className="text-slate-600 dark:text-slate-400">none</span> : values.map((v) => <code key={v} className="mr-2 break-all">{v}</code>)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function FindingsPanel({ findings, refused = false }: { findings: Finding[]; refused?: boolean }) {
  return (
    <div className={PANEL}>
      <h2 className={H2}>Findings about sign-in</h2>
      {findings.length === 0 ? <p className="text-sm">{refused ? 'None besides the refusal above: the dashboard\'s scopes match the server\'s audience.' : 'None: your token\'s claims resolve as configured and the dashboard\'s scopes match the server\'s audience.'}</p> : (
        <ul className="space-y-1 text-sm">
          {findings.map((f) => (
            <li key={f.reason} className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-50">
              <span className="font-medium">{f.severity}</span>: {f.reason}{f.field ? <> (<code>{f.field}</code>)</> : null}
            </li>
          ))}
        </ul>
      )}
      <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">Every finding of the server: <Link to="/findings" className="underline">Findings</Link>.</p>
    </div>
  );
}

function SettingsPanel() {
  const { settings } = useServices();
  const rows: [string, string, string | null][] = [
    ['Authority', 'SERVICE_AUTH_AUTHORITY', settings.authority],
    ['Audience', 'SERVICE_AUTH_AUDIENCE', settings.audience],
    ['Dashboard client id', 'SERVICE_AUTH_CLIENT_ID', settings.clientId],
    ['Scopes', 'SERVICE_AUTH_SCOPES', settings.scopes],
    ['Redirect path', 'SERVICE_AUTH_REDIRECT_PATH', settings.redirectPath],
  ];
  return (
    <div className={PANEL}>
      <h2 className={H2}>Sign-in settings of this server</h2>
      <table aria-label="Sign-in settings" className="w-full border-collapse text-sm">
        <tbody>
          {rows.map(([label, env, value]) => (
            <tr key={env} className="border-t border-slate-200 first:border-t-0 dark:border-slate-800">
              <th scope="row" className="px-3 py-1 text-left font-normal">{label} <span className="text-xs text-slate-600 dark:text-slate-400">({env})</span></th>
              <td className="px-3 py-1 break-all">{value ? <code>{value}</code> : <span className="text-slate-600 dark:text-slate-400">not set</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
