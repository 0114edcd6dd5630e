import { type KubeConfig, type V1Pod, Watch } from '@kubernetes/client-node';

/** Waiting reasons that will not resolve by themselves: the image cannot be had. */
const PULL_FAILURES = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);
/** Waiting reasons of a container that cannot be made as specified. */
const CONFIG_FAILURES = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

/**
 * What a pod's status says: running, still coming, or failed (with why). A pull failure names the
 * image; a pod that ended (its idle command died) is a failure too.
 */
export function podProgress(pod: V1Pod): { state: 'running' } | { state: 'pending' } | { state: 'failed'; reason: string } {
  const phase = pod.status?.phase;
  const container = pod.status?.containerStatuses?.[0];
  const waiting = container?.state?.waiting;
  const image = pod.spec?.containers[0]?.image ?? '?';
  if (waiting?.reason && PULL_FAILURES.has(waiting.reason)) {
    return { state: 'failed', reason: `image "${image}" could not be pulled (${waiting.reason}): ${waiting.message ?? ''}`.trim() };
  }
  if (waiting?.reason && CONFIG_FAILURES.has(waiting.reason)) {
    return { state: 'failed', reason: `the sandbox container of image "${image}" could not start (${waiting.reason}): ${waiting.message ?? ''}`.trim() };
  }
  if (phase === 'Failed' || phase === 'Succeeded') return { state: 'failed', reason: `the sandbox pod ended (${phase}) before it was used` };
  if (phase === 'Running' && container?.state?.running) return { state: 'running' };
  return { state: 'pending' };
}

/**
 * Waits (watch on the pod, from the version its creation answered) until it runs; rejects with why
 * it cannot, or after `timeoutMs`.
 */
export async function waitForRunning(config: KubeConfig, namespace: string, created: V1Pod, timeoutMs: number): Promise<void> {
  const name = created.metadata!.name!;
  const first = podProgress(created);
  if (first.state === 'running') return;
  if (first.state === 'failed') throw new Error(first.reason);
  let controller: AbortController | null = null;
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`pod ${name} did not start within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      let resourceVersion = created.metadata?.resourceVersion;
      const start = () => {
        new Watch(config).watch(
          `/api/v1/namespaces/${namespace}/pods`,
          { fieldSelector: `metadata.name=${name}`, resourceVersion, allowWatchBookmarks: false },
          (type: string, pod: V1Pod) => {
            if (type === 'ERROR') return;
            resourceVersion = pod.metadata?.resourceVersion ?? resourceVersion;
            if (type === 'DELETED') return reject(new Error(`pod ${name} was deleted while starting`));
            const progress = podProgress(pod);
            if (progress.state === 'running') resolve();
            else if (progress.state === 'failed') reject(new Error(progress.reason));
          },
          (error: unknown) => {
            // The server ends watches now and then: go on from where it stopped, unless done.
            if (timer && error && (error as Error).name === 'AbortError') return;
            if (timer) setTimeout(() => timer && start(), error ? 500 : 0);
          },
        ).then((c) => {
          controller = c;
        }, reject);
      };
      start();
    });
  } finally {
    clearTimeout(timer);
    timer = undefined;
    (controller as AbortController | null)?.abort();
  }
}
