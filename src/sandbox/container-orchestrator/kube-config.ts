import { homedir } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';

/**
 * The cluster connection: the kubeconfig file `sandbox.orchestrator.kubeconfig` names when set
 * (`~` expanded); in-cluster (the pod's service account) when the server runs in a pod; else the
 * client's default lookup (`KUBECONFIG`, `~/.kube/config`).
 */
export function loadKubeConfig(kubeconfig: string | null, inCluster: boolean): KubeConfig {
  const config = new KubeConfig();
  if (kubeconfig) config.loadFromFile(kubeconfig.replace(/^~(?=$|\/)/, homedir()));
  else if (inCluster) config.loadFromCluster();
  else config.loadFromDefault();
  return config;
}

/** Kubernetes sets KUBERNETES_SERVICE_HOST in every pod: the server runs in a cluster. */
export function runningInCluster(env: { KUBERNETES_SERVICE_HOST?: string }): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST);
}
