import { Injectable, Logger } from '@nestjs/common';
import { collectSecrets, scrubSecrets } from '../common/secret-scrubber.js';
import { ConfigService } from '../config/config.service.js';
import type { ProjectConfig, TriggerConfig } from '../config/service-config.js';
import { ProjectTrackerFactory } from '../tickets/label-projection/project-tracker.factory.js';
import type { StoredDraft } from './dialog-types.js';
import { DialogStoreService } from './dialog-store.service.js';

/** One draft's filing as the answer lists it. */
export interface FiledTicket {
  index: number;
  ticket: string;
  url: string;
  /** Put into the trigger status or label by this request (or the earlier one that filed it). */
  started: boolean;
  /** Filed by an earlier request: this one filed nothing again. */
  alreadyFiled: boolean;
}

export interface FilingProblem {
  index: number;
  error: string;
}

export type FilingOutcome =
  | { outcome: 'filed'; filed: FiledTicket[]; errors: FilingProblem[] }
  | { outcome: 'not-found' }
  | { outcome: 'refused'; error: string }
  | { outcome: 'bad-request'; error: string };

/**
 * Labels a draft may not carry: anything that would start a run without `start: true` (a trigger
 * status on label trackers, a label `pipeline_from_label` maps, the pull-request scan label) and
 * the service's own `service:` labels. Compared case-insensitively, as triggers are matched.
 */
function triggerLabels(trigger: TriggerConfig | null): Set<string> {
  if (!trigger) return new Set();
  return new Set([...trigger.trigger_statuses, ...Object.keys(trigger.pipeline_from_label), ...(trigger.pr_trigger_label ? [trigger.pr_trigger_label] : [])].map((l) => l.toLowerCase()));
}

/**
 * Files a conversation's chosen drafts in the project's tracker, through the tracker client's
 * `createTicket` (each platform's folder writes its own request), one draft after the other with
 * the conversation's drafts locked: a draft filed before is answered with its ticket, never filed
 * twice. `start`: each new ticket is then moved into the trigger block's first trigger status (a
 * label on GitHub and GitLab), and the run starts as for any ticket moved there: by the tracker's
 * webhook, or the poller.
 */
@Injectable()
export class DialogFilingService {
  private readonly logger = new Logger('Dialog');

  constructor(
    private readonly config: ConfigService,
    private readonly trackers: ProjectTrackerFactory,
    private readonly store: DialogStoreService,
  ) {}

  async file(owner: string, conversationId: string, project: ProjectConfig, indices: readonly number[], start: boolean, by: string): Promise<FilingOutcome> {
    const tracker = this.trackers.forProject(project.name, project.tracker);
    if ('unconfigured' in tracker) return { outcome: 'refused', error: `the project's tracker cannot be reached: ${tracker.unconfigured}` };
    const client = tracker.client;
    if (!client.createTicket) return { outcome: 'refused', error: `tickets cannot be filed on ${project.tracker}` };
    const trigger = tracker.trigger;
    const startStatus = trigger?.trigger_statuses[0] ?? null;
    if (start && !startStatus) return { outcome: 'refused', error: `start needs a trigger status: the project's ${project.tracker} trigger block lists no trigger_statuses` };
    const forbidden = triggerLabels(trigger);
    const secrets = collectSecrets(this.config.config, this.config.env);
    const result = await this.store.withDraftsLocked(owner, conversationId, async (drafts, markFiled) => {
      const byIndex = new Map(drafts.map((d) => [d.index, d]));
      const unknown = indices.filter((i) => !byIndex.has(i));
      if (unknown.length > 0) {
        return { outcome: 'bad-request', error: `no draft ${unknown.join(', ')} in this conversation (it has ${drafts.length === 0 ? 'none' : `0 to ${drafts.length - 1}`})` } as const;
      }
      const filed: FiledTicket[] = [];
      const errors: FilingProblem[] = [];
      for (const index of [...new Set(indices)]) {
        const draft = byIndex.get(index) as StoredDraft;
        if (draft.filed) {
          filed.push({ index, ticket: draft.filed.ticket, url: draft.filed.url, started: draft.filed.started, alreadyFiled: true });
          continue;
        }
        // Nothing below may throw: a ticket once created must be recorded (the transaction commits what was filed).
        let created: { ticket: string; url: string };
        try {
          created = await client.createTicket!({
            title: draft.title, body: draft.body, criteria: draft.criteria,
            labels: draft.labels.filter((l) => !forbidden.has(l.toLowerCase()) && !l.toLowerCase().startsWith('service:')),
            type: trigger?.ticket_type ?? null,
          });
        } catch (error) {
          errors.push({ index, error: scrubSecrets(`filing draft ${index} failed: ${(error as Error).message}`, secrets) });
          continue;
        }
        let started = false;
        if (start && startStatus) {
          try {
            await client.setStatus(created.ticket, startStatus);
            started = true;
          } catch (error) {
            errors.push({ index, error: scrubSecrets(`ticket ${created.ticket} was filed but not moved to ${startStatus}: ${(error as Error).message}`, secrets) });
          }
        }
        await markFiled(index, { ...created, by, started });
        this.logger.log(`project ${project.name}: draft ${index} of conversation ${conversationId} filed as ${created.ticket}${started ? ` in ${startStatus}` : ''} by ${by}`);
        filed.push({ index, ...created, started, alreadyFiled: false });
      }
      return { outcome: 'filed', filed, errors } as const;
    });
    return result ?? { outcome: 'not-found' };
  }
}
