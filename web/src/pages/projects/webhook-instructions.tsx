import { useState } from 'react';
import { Button } from '../../components/ui';
import type { WebhookAdvice } from './add-project';
import { PLATFORM_NAMES } from './config-projects';

/** Where each tracker registers a webhook, and what it should send (docs/webhooks.md). */
const STEPS: Record<WebhookAdvice['platform'], { where: string; secretField: string; events: string }> = {
  'platform-a': { where: 'the repository\'s Settings → Webhooks → Add webhook (content type application/json)', secretField: 'Secret', events: 'Issues, Issue comments and Pull requests' },
  'platform-b': { where: 'the project\'s Settings → Webhooks → Add new webhook', secretField: 'Secret token', events: 'Issues events, Comments and Merge request events' },
  'platform-c': { where: 'Project settings → Service hooks → Web Hooks (one per event)', secretField: 'Basic authentication password', events: 'Work item created, Work item updated and Work item commented on' },
  'platform-d': { where: 'System → WebHooks → Create a WebHook (an administrator of the site)', secretField: 'Secret', events: 'Issue created, Issue updated and Comment created, with a JQL filter on the project' },
};

export function WebhookInstructions({ webhook }: { webhook: WebhookAdvice }) {
  const url = `${window.location.origin}${webhook.path}`;
  const steps = STEPS[webhook.platform];
  return (
    <section aria-labelledby="webhook-heading" className="rounded border border-slate-200 p-4 text-sm dark:border-slate-800">
      <h2 id="webhook-heading" className="mb-2 text-base font-semibold">Register the webhook on {PLATFORM_NAMES[webhook.platform]}</h2>
      <p className="mb-3">In {steps.where}, add:</p>
      <dl className="grid gap-x-4 gap-y-2 sm:grid-cols-[10rem_1fr]">
        <dt className="font-medium">URL</dt>
        <dd><Copyable value={url} label="webhook URL" /></dd>
        <dt className="font-medium">{steps.secretField}</dt>
        <dd>
          {webhook.secret ? (
            <>
              <Copyable value={webhook.secret} label="webhook secret" />
              <p className="mt-1 text-xs text-amber-800 dark:text-amber-300">Shown this once: it is stored as secret {webhook.secretName} and never shown again. Copy it now.</p>
            </>
          ) : (
            <span>The {PLATFORM_NAMES[webhook.platform]} webhook secret this server already has (it was configured before; it is never shown).</span>
          )}
        </dd>
        <dt className="font-medium">Events</dt>
        <dd>{steps.events}</dd>
      </dl>
      <p className="mt-3 text-xs text-slate-600 dark:text-slate-400">The Diagnostics page shows the last delivery received per platform and its outcome.</p>
    </section>
  );
}

function Copyable({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="flex flex-wrap items-center gap-2">
      <code className="rounded bg-slate-100 px-1.5 py-0.5 break-all dark:bg-slate-800">{value}</code>
      <Button
        aria-label={`Copy the ${label}`}
        onPress={() => void navigator.clipboard?.writeText(value).then(() => setCopied(true), () => setCopied(false))}
      >
        {copied ? 'Copied' : 'Copy'}
      </Button>
    </span>
  );
}
