/** Kinds of run events (stored in `run_events.kind` and published on the live run feed). */
export const RunEventKind = {
  /** A ticket or run state change (claim, dequeue, success, failure, stale revert). */
  State: 'state',
  Queued: 'queued',
  Admitted: 'admitted',
  SandboxCreated: 'sandbox-created',
  SandboxDestroyed: 'sandbox-destroyed',
  /** A repository's tree reached its sandbox (which branch, which commit, resumed or not). */
  Workspace: 'workspace',
  /** Publishing: commit, secret scan, push, pull request, or the wip commit of a failed run. */
  Publish: 'publish',
  /** One language-model call: model, tokens, cost, duration, attempts. */
  ModelCall: 'model-call',
  /** One agent tool call: tool, a one-line view of its arguments, exit code, duration. */
  ToolCall: 'tool-call',
  /** What the agent says between tool calls, and how an agent step ended (finish, ask, a budget). */
  Agent: 'agent',
  StepStarted: 'step-started',
  StepFinished: 'step-finished',
  StepFailed: 'step-failed',
  Stdout: 'stdout',
  Stderr: 'stderr',
  RunSucceeded: 'run-succeeded',
  RunFailed: 'run-failed',
  /** An operator cancelled the run (who, and what became of its sandboxes). */
  RunCancelled: 'run-cancelled',
  /** An operator retried the run: on the old run and on the new one, naming each other. */
  RunRetried: 'run-retried',
  /** The agent handed the ticket back: the run waits, parked, for an answer. */
  RunParked: 'run-parked',
  /** Someone answered a parked run: who, where, and the run that resumes the ticket. */
  RunAnswered: 'run-answered',
  /** Acceptance criteria: how many were read from the ticket (and what was left out), the agent's verdicts, the check at the end. */
  Criteria: 'criteria',
  /** The hand-back could not be posted on a pull request of the ticket (best effort). */
  HandBack: 'hand-back',
} as const;
export type RunEventKind = (typeof RunEventKind)[keyof typeof RunEventKind];
