/**
 * The built-in pipelines and what each one is, beyond its steps: the one place their names are
 * written. Code outside `src/pipelines/` asks a trait (`builtInTraitsOf(name)`) or takes one of
 * the constants below instead of comparing a pipeline's name. This file imports nothing, so the
 * configuration's readers can consult it without pulling in the pipelines themselves.
 */
export const BuiltInPipeline = {
  Code: 'code',
  SecurityScan: 'security-scan',
  PrReview: 'pr-review',
} as const;
export type BuiltInPipeline = (typeof BuiltInPipeline)[keyof typeof BuiltInPipeline];

/** What a built-in pipeline is, as the rest of the server needs to know it. */
export interface BuiltInTraits {
  /** It drives a model: it needs the project's agent, and a sandbox backend that isolates from the host. */
  drivesModel: boolean;
  /**
   * It changes the repositories for a ticket: a run that changes nothing fails, its work is
   * published as pull requests (the service pull requests), a comment on those reworks it, it
   * needs a ticket, and it can hand the ticket back to ask (park).
   */
  writesCode: boolean;
  /** It reviews the open pull requests of its ticket (or the one it was started on). */
  reviewsTicketPullRequests: boolean;
  /**
   * The words a pull-request command names it by, its own name first; empty when no comment may
   * start it (spec, "Pull-request commands" rule 2).
   */
  commandWords: readonly string[];
}

export const BUILT_IN_TRAITS: Readonly<Record<BuiltInPipeline, BuiltInTraits>> = {
  [BuiltInPipeline.Code]: { drivesModel: true, writesCode: true, reviewsTicketPullRequests: false, commandWords: ['code', 'implement'] },
  [BuiltInPipeline.SecurityScan]: { drivesModel: true, writesCode: false, reviewsTicketPullRequests: false, commandWords: ['security-scan', 'scan', 'security'] },
  [BuiltInPipeline.PrReview]: { drivesModel: true, writesCode: false, reviewsTicketPullRequests: true, commandWords: ['pr-review', 'review'] },
};

/** Every built-in's name: reserved under `pipelines:`, always a known pipeline. */
export const BUILT_IN_PIPELINES: readonly string[] = Object.values(BuiltInPipeline);

/** The traits of the built-in `name` stands for; undefined for a command pipeline (`pipelines:`) or an unknown name. */
export function builtInTraitsOf(name: string): BuiltInTraits | undefined {
  return Object.hasOwn(BUILT_IN_TRAITS, name) ? BUILT_IN_TRAITS[name as BuiltInPipeline] : undefined;
}

/** Whether `name` is a built-in with the trait. */
export function builtInHas(name: string, trait: 'drivesModel' | 'writesCode' | 'reviewsTicketPullRequests'): boolean {
  return builtInTraitsOf(name)?.[trait] === true;
}

/** The built-ins that have the trait, in the order above. */
export function builtInsWith(trait: 'drivesModel' | 'writesCode' | 'reviewsTicketPullRequests'): readonly string[] {
  return BUILT_IN_PIPELINES.filter((name) => builtInHas(name, trait));
}

/**
 * The pipeline a ticket gets when nothing names one: a chat start without a pipeline or trigger
 * default, a command that names only a ticket, a run record without its pipeline.
 */
export const DEFAULT_PIPELINE: string = BuiltInPipeline.Code;

/** What a comment on a service pull request reruns: the pipeline that wrote it. */
export const REWORK_PIPELINE: string = builtInsWith('writesCode')[0]!;

/** What a pull-request trigger label (`pr_trigger_label`, the security-review label) starts. */
export const PULL_REQUEST_LABEL_PIPELINE: string = BuiltInPipeline.SecurityScan;
