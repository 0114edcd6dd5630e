/** What the server says about itself: version and the (legacy, unaggregated) discovery documents. */
export const VERSION_INFO = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-stand-in',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-12-11T00:00:00Z',
  goVersion: 'go1.23.3',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export function apiVersions(serverAddress: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export const API_GROUPS = {
  kind: 'APIGroupList',
  apiVersion: 'v1',
  groups: [{
    name: 'networking.k8s.io',
    versions: [{ groupVersion: 'networking.k8s.io/v1', version: 'v1' }],
    preferredVersion: { groupVersion: 'networking.k8s.io/v1', version: 'v1' },
  }],
};

const resource = (name: string, kind: string, verbs: string[], extra: object = {}) => ({ name, singularName: '', namespaced: true, kind, verbs, ...extra });

export const CORE_V1_RESOURCES = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['get', 'list'], shortNames: ['ns'] },
    resource('pods', 'Pod', ['create', 'delete', 'get', 'list', 'watch'], { singularName: 'pod', shortNames: ['po'], categories: ['all'] }),
    resource('pods/exec', 'PodExecOptions', ['create', 'get']),
    resource('secrets', 'Secret', ['create', 'delete', 'get', 'list', 'update'], { singularName: 'secret' }),
  ],
};

export const NETWORKING_V1_RESOURCES = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'networking.k8s.io/v1',
  resources: [resource('networkpolicies', 'NetworkPolicy', ['create', 'delete', 'get', 'list'], { singularName: 'networkpolicy', shortNames: ['netpol'] })],
};

/** `kubectl get pods` asks for a Table (`Accept: …;as=Table;g=meta.k8s.io`): its default columns. */
export function podTable(pods: Record<string, any>[], resourceVersion: string): object {
  const now = Date.now();
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion },
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
      { name: 'Ready', type: 'string', format: '', description: 'The aggregate readiness state of this pod for accepting traffic.', priority: 0 },
      { name: 'Status', type: 'string', format: '', description: 'The aggregate status of the containers in this pod.', priority: 0 },
      { name: 'Restarts', type: 'string', format: '', description: 'The number of times the containers in this pod have been restarted.', priority: 0 },
      { name: 'Age', type: 'string', format: '', description: 'CreationTimestamp.', priority: 0 },
      { name: 'IP', type: 'string', format: '', description: 'IP address allocated to the pod.', priority: 1 },
      { name: 'Node', type: 'string', format: '', description: 'Name of the node.', priority: 1 },
    ],
    rows: pods.map((pod) => {
      const statuses: any[] = pod.status?.containerStatuses ?? [];
      const ready = statuses.filter((s) => s.ready).length;
      const waiting = statuses.find((s) => s.state?.waiting)?.state.waiting.reason;
      const age = Math.max(0, Math.round((now - Date.parse(pod.metadata.creationTimestamp)) / 1000));
      return {
        cells: [pod.metadata.name, `${ready}/${pod.spec.containers.length}`, pod.metadata.deletionTimestamp ? 'Terminating' : waiting ?? pod.status?.phase, 0, `${age}s`, pod.status?.podIP ?? '<none>', pod.spec.nodeName ?? '<none>'],
        object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pod.metadata },
      };
    }),
  };
}
