import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import Docker from 'dockerode';
import { alreadyExists, type ApiStatus, failure, invalid, namespaceNotFound, podNotFound, secretNotFound, unauthorized } from './kubernetes/api-status.js';
import { API_GROUPS, apiVersions, CORE_V1_RESOURCES, NETWORKING_V1_RESOURCES, podTable, VERSION_INFO } from './kubernetes/discovery.js';
import { ExecBridge, negotiate } from './kubernetes/exec-bridge.js';
import { type ApiObject, ObjectStore, type WatchEvent } from './kubernetes/object-store.js';
import { ContainerWaiting, PodRuntime, type PodSpecView } from './kubernetes/pod-runtime.js';
import { servingCertificate } from './kubernetes/serving-certificate.js';
import { fieldSelector, labelSelector, validDnsSubdomain, validLabelKey, validLabelValue } from './kubernetes/selectors.js';
import { readBody } from './stand-in-server.js';

/**
 * A Kubernetes API server stand-in: a real HTTP server speaking the core/v1 endpoints the
 * container-orchestrator backend and kubectl use (discovery, pods create/get/list/watch/delete
 * with dryRun, labelSelector and fieldSelector, the exec subresource over WebSocket with the
 * `v5.channel.k8s.io` / `v4.channel.k8s.io` protocols), Secrets (create/get/replace/delete) and
 * NetworkPolicies; every Pod runs as a
 * real container on the local Docker engine. HTTPS with a self-signed certificate (`caCertificate`,
 * in the kubeconfig it writes); requests need `Authorization: Bearer <token>`.
 */

export interface RecordedKubeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  at: number;
}

interface Answer {
  status: number;
  body: unknown;
}

const NODE_NAME = 'stand-in-node';

export class KubernetesStandIn {
  readonly requests: RecordedKubeRequest[] = [];
  readonly token: string;
  readonly docker: Docker;
  private readonly namespaces: Set<string>;
  private revision = 1;
  private readonly clock = { next: () => ++this.revision, current: () => this.revision };
  readonly pods = new ObjectStore(this.clock);
  readonly networkPolicies = new ObjectStore(this.clock);
  readonly secrets = new ObjectStore(this.clock);
  /** Pod key (`ns/name`) → the `imagePullSecrets` names its spec gave (the stand-in pulls nothing itself). */
  readonly imagePullSecrets = new Map<string, string[]>();
  /** Pod key (`ns/name`) → Docker container id, once started. */
  private readonly containers = new Map<string, string>();
  private readonly id = randomBytes(4).toString('hex');
  private runtime!: PodRuntime;
  private exec!: ExecBridge;
  private server: Server | null = null;
  private readonly sockets = new Set<Duplex>();
  private readonly watches = new Set<ServerResponse>();
  private baseUrl = '';
  private refusing = false;
  /** Called before each (non-upgrade) request is routed: tests change the store in between, as a racing writer would. */
  beforeRoute: ((method: string, path: string) => void) | null = null;
  /** Pods being started (their containers may not exist yet): `stop()` waits for them. */
  private readonly starting = new Set<Promise<void>>();
  private readonly tls = servingCertificate();

  /** PEM of the serving certificate, its own authority (the kubeconfig's certificate-authority-data). */
  get caCertificate(): string {
    return this.tls.cert;
  }

  constructor(options: { token?: string; namespaces?: string[]; docker?: Docker } = {}) {
    this.token = options.token ?? `stand-in-${randomBytes(8).toString('hex')}`;
    this.namespaces = new Set(['default', 'kube-system', ...(options.namespaces ?? [])]);
    this.docker = options.docker ?? new Docker();
  }

  get url(): string {
    if (!this.baseUrl) throw new Error('stand-in not started');
    return this.baseUrl;
  }

  async start(): Promise<this> {
    const server = createServer({ key: this.tls.key, cert: this.tls.cert }, (req, res) => void this.handle(req, res));
    server.on('upgrade', (req, socket, head) => void this.upgrade(req, socket, head));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.runtime = new PodRuntime(this.docker, this.id);
    this.exec = new ExecBridge(this.docker);
    return this;
  }

  /** Stops serving and removes every container its pods ran in. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    for (const res of this.watches) res.end();
    this.exec.closeAll();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.allSettled([...this.starting]);
    await this.runtime.removeAll();
  }

  /** Every connection is reset without an answer (an unreachable cluster), or serving again. */
  setRefusing(refusing: boolean): void {
    this.refusing = refusing;
  }

  addNamespace(name: string): void {
    this.namespaces.add(name);
  }

  /** Writes a kubeconfig (cluster, token user, context) for this stand-in into `dir`; answers its path. */
  writeKubeconfig(dir: string, namespace = 'default'): string {
    const path = join(dir, 'kubeconfig');
    writeFileSync(path, [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: stand-in',
      `  cluster: {server: "${this.url}", certificate-authority-data: "${Buffer.from(this.tls.cert).toString('base64')}"}`,
      'users:',
      '- name: stand-in',
      `  user: {token: "${this.token}"}`,
      'contexts:',
      '- name: stand-in',
      `  context: {cluster: stand-in, user: stand-in, namespace: "${namespace}"}`,
      'current-context: stand-in',
      '',
    ].join('\n'));
    return path;
  }

  /** The Docker container a pod runs in (tests inspect it), or undefined before it started. */
  containerOf(namespace: string, name: string): string | undefined {
    return this.containers.get(`${namespace}/${name}`);
  }

  private authorized(headers: IncomingHttpHeaders): boolean {
    return headers.authorization === `Bearer ${this.token}`;
  }

  private record(req: IncomingMessage): URL {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, at: Date.now() });
    return url;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = this.record(req);
    if (this.refusing) {
      req.socket.destroy();
      return;
    }
    const raw = await readBody(req);
    if (!this.authorized(req.headers)) return send(res, { status: 401, body: unauthorized() });
    const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    try {
      if (req.method === 'GET' && isWatch(url.searchParams)) {
        const target = this.watchTarget(segments);
        if (target) return this.watch(res, target.store, target.namespace, url.searchParams);
      }
      this.beforeRoute?.(req.method ?? 'GET', url.pathname);
      const answer = await this.route(req.method ?? 'GET', segments, url.searchParams, raw, req.headers);
      send(res, answer);
    } catch (error) {
      send(res, { status: 500, body: failure(500, 'InternalError', (error as Error).message) });
    }
  }

  private async route(method: string, s: string[], query: URLSearchParams, raw: string, headers: IncomingHttpHeaders): Promise<Answer> {
    const path = s.join('/');
    if (method === 'GET' && path === 'version') return ok(VERSION_INFO);
    if (method === 'GET' && path === 'api') return ok(apiVersions(this.url.replace(/^https?:\/\//, '')));
    if (method === 'GET' && path === 'apis') return ok(API_GROUPS);
    if (method === 'GET' && path === 'api/v1') return ok(CORE_V1_RESOURCES);
    if (method === 'GET' && path === 'apis/networking.k8s.io/v1') return ok(NETWORKING_V1_RESOURCES);
    if (s[0] === 'api' && s[1] === 'v1' && s[2] === 'pods' && s.length === 3 && method === 'GET') {
      return this.list(this.pods, null, query, headers, 'PodList');
    }
    if (s[0] === 'api' && s[1] === 'v1' && s[2] === 'namespaces' && s[3]) {
      const ns = s[3];
      if (s.length === 4 && method === 'GET') {
        return this.namespaces.has(ns) ? ok({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: ns }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }) : fail(namespaceNotFound(ns));
      }
      if (s[4] === 'pods') return this.routePods(method, ns, s.slice(5), query, raw, headers);
      if (s[4] === 'secrets' && s.length <= 6) return this.routeSecrets(method, ns, s[5], query, raw, headers);
    }
    if (s[0] === 'apis' && s[1] === 'networking.k8s.io' && s[2] === 'v1' && s[3] === 'namespaces' && s[4] && s[5] === 'networkpolicies') {
      return this.routePolicies(method, s[4], s[6], query, raw, headers);
    }
    return fail(failure(404, 'NotFound', 'the server could not find the requested resource'));
  }

  private async routePods(method: string, ns: string, rest: string[], query: URLSearchParams, raw: string, headers: IncomingHttpHeaders): Promise<Answer> {
    const [name, sub] = rest;
    if (!name && method === 'GET') return this.list(this.pods, ns, query, headers, 'PodList');
    if (!name && method === 'POST') return this.createPod(ns, raw, query);
    if (name && !sub && method === 'GET') {
      const pod = this.pods.get(ns, name);
      return pod ? ok(withType(pod, 'Pod', 'v1')) : fail(podNotFound(name));
    }
    if (name && !sub && method === 'DELETE') return this.deletePod(ns, name, raw, query);
    if (name && sub === 'exec') return fail(failure(400, 'BadRequest', 'Upgrade request required'));
    return fail(failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
  }

  private createPod(ns: string, raw: string, query: URLSearchParams): Answer {
    if (!this.namespaces.has(ns)) return fail(namespaceNotFound(ns));
    const pod = parse(raw) as ApiObject & { spec?: PodSpecView & Record<string, unknown>; status?: unknown };
    if (!pod || typeof pod !== 'object' || !pod.metadata) return fail(failure(400, 'BadRequest', 'the body of the request was in an unknown format'));
    if (pod.metadata.namespace && pod.metadata.namespace !== ns) {
      return fail(failure(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request'));
    }
    const generateName = pod.metadata.generateName as string | undefined;
    const name = pod.metadata.name || (generateName ? `${generateName}${randomSuffix()}` : '');
    const causes = validatePod(name, pod);
    if (causes.length > 0) return fail(invalid('pods', name, causes));
    if (this.pods.get(ns, name)) return fail(alreadyExists('pods', name));
    const spec = pod.spec as PodSpecView & Record<string, unknown>;
    const created: ApiObject = {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { ...pod.metadata, name, namespace: ns, uid: '', resourceVersion: '' },
      spec: { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler', ...spec },
      status: { phase: 'Pending', qosClass: qosClass(spec) },
    };
    if (query.get('dryRun') === 'All') {
      created.metadata.uid = crypto.randomUUID();
      created.metadata.creationTimestamp = new Date().toISOString();
      return { status: 201, body: created };
    }
    const stored = this.pods.add(created);
    const pullSecrets = (spec as { imagePullSecrets?: { name?: string }[] }).imagePullSecrets ?? [];
    this.imagePullSecrets.set(`${ns}/${name}`, pullSecrets.map((r) => r.name ?? ''));
    const starting = this.runPod(ns, name).finally(() => this.starting.delete(starting));
    this.starting.add(starting);
    return { status: 201, body: structuredClone(stored) };
  }

  /** The kubelet's part: schedule, start the container, report Running (or why it waits). */
  private async runPod(ns: string, name: string): Promise<void> {
    const change = (mutate: (pod: any) => void) => {
      const current = this.pods.get(ns, name);
      if (!current || current.metadata.deletionTimestamp) return false;
      const next = structuredClone(current) as any;
      mutate(next);
      this.pods.update(next);
      return true;
    };
    const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const containerName = (this.pods.get(ns, name) as any)?.spec.containers[0].name;
    const image = (this.pods.get(ns, name) as any)?.spec.containers[0].image;
    change((pod) => {
      pod.spec.nodeName = NODE_NAME;
      pod.status = { ...pod.status, hostIP: '127.0.0.1', startTime: now(), conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: now() }],
        containerStatuses: [{ name: containerName, image, imageID: '', ready: false, restartCount: 0, started: false, state: { waiting: { reason: 'ContainerCreating' } } }] };
    });
    const pod = this.pods.get(ns, name) as any;
    if (!pod) return;
    try {
      const started = await this.runtime.start(
        { namespace: ns, name, uid: pod.metadata.uid, labels: pod.metadata.labels ?? {}, networkIsolated: this.isolated(ns, pod.metadata.labels ?? {}) },
        pod.spec,
      );
      this.containers.set(`${ns}/${name}`, started.id);
      const stillThere = change((p) => {
        p.status.phase = 'Running';
        p.status.podIP = started.ip || undefined;
        p.status.conditions = [
          { type: 'PodScheduled', status: 'True', lastTransitionTime: now() },
          { type: 'Initialized', status: 'True', lastTransitionTime: now() },
          { type: 'ContainersReady', status: 'True', lastTransitionTime: now() },
          { type: 'Ready', status: 'True', lastTransitionTime: now() },
        ];
        p.status.containerStatuses = [{ name: containerName, image: started.image, imageID: started.imageId, containerID: `docker://${started.id}`,
          ready: true, started: true, restartCount: 0, state: { running: { startedAt: now() } } }];
      });
      if (!stillThere) await this.runtime.remove(started.id);
    } catch (error) {
      const waiting = error instanceof ContainerWaiting ? error : new ContainerWaiting('CreateContainerError', (error as Error).message);
      change((p) => { p.status.containerStatuses[0].state = { waiting: { reason: waiting.reason, message: waiting.message } }; });
      if (waiting.reason === 'ErrImagePull') {
        await new Promise((resolve) => setTimeout(resolve, 300));
        change((p) => { p.status.containerStatuses[0].state = { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` } }; });
      }
    }
  }

  /** A pod selected by a NetworkPolicy denying all egress (no egress rules) gets no network. */
  private isolated(ns: string, labels: Record<string, string>): boolean {
    return this.networkPolicies.list(ns).some((policy: any) => {
      const match: Record<string, string> = policy.spec?.podSelector?.matchLabels ?? {};
      const selects = Object.entries(match).every(([k, v]) => labels[k] === v);
      return selects && (policy.spec?.policyTypes ?? []).includes('Egress') && (policy.spec?.egress ?? []).length === 0;
    });
  }

  private async deletePod(ns: string, name: string, raw: string, query: URLSearchParams): Promise<Answer> {
    const pod = this.pods.get(ns, name);
    if (!pod) return fail(podNotFound(name));
    const options = (parse(raw) ?? {}) as { gracePeriodSeconds?: number };
    const grace = options.gracePeriodSeconds ?? (query.has('gracePeriodSeconds') ? Number(query.get('gracePeriodSeconds')) : 30);
    if (query.get('dryRun') === 'All') return ok(withType(pod, 'Pod', 'v1'));
    if (!pod.metadata.deletionTimestamp) {
      const marked = structuredClone(pod);
      marked.metadata.deletionTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      marked.metadata.deletionGracePeriodSeconds = grace;
      this.pods.update(marked);
    }
    const answer = ok(withType(this.pods.get(ns, name)!, 'Pod', 'v1'));
    const containerId = this.containers.get(`${ns}/${name}`);
    void (async () => {
      if (containerId) await this.runtime.remove(containerId);
      this.containers.delete(`${ns}/${name}`);
      this.pods.remove(ns, name);
    })();
    return answer;
  }

  /**
   * Secrets: create (409 AlreadyExists), get, replace (PUT; 404 when absent, 409 Conflict on a stale
   * `resourceVersion`), delete, list; `data` values must be base64, and a `kubernetes.io/dockerconfigjson`
   * Secret needs `.dockerconfigjson` holding JSON (the API server's validation).
   */
  private routeSecrets(method: string, ns: string, name: string | undefined, query: URLSearchParams, raw: string, headers: IncomingHttpHeaders): Answer {
    if (!this.namespaces.has(ns)) return fail(namespaceNotFound(ns));
    if (!name && method === 'GET') return this.list(this.secrets, ns, query, headers, 'SecretList');
    const dryRun = query.get('dryRun') === 'All';
    if (!name && method === 'POST') {
      const secret = parse(raw) as ApiObject | undefined;
      const problem = this.secretProblem(secret, ns, secret?.metadata?.name);
      if (problem) return fail(problem);
      const secretName = secret!.metadata.name;
      if (this.secrets.get(ns, secretName)) return fail(alreadyExists('secrets', secretName));
      const object = secretObject(secret!, ns, undefined);
      if (dryRun) return { status: 201, body: object };
      return { status: 201, body: structuredClone(this.secrets.add(object)) };
    }
    if (!name) return fail(failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
    const current = this.secrets.get(ns, name);
    if (method === 'GET') return current ? ok(withType(current, 'Secret', 'v1')) : fail(secretNotFound(name));
    if (method === 'PUT') {
      const secret = parse(raw) as ApiObject | undefined;
      const problem = this.secretProblem(secret, ns, name);
      if (problem) return fail(problem);
      if (secret!.metadata.name !== name) return fail(failure(400, 'BadRequest', `the name of the object (${secret!.metadata.name}) does not match the name on the URL (${name})`));
      if (!current) return fail(secretNotFound(name));
      const expected = secret!.metadata.resourceVersion;
      if (expected && expected !== current.metadata.resourceVersion) {
        return fail(failure(409, 'Conflict', `Operation cannot be fulfilled on secrets "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, kind: 'secrets' }));
      }
      if ((current as { type?: string }).type !== ((secret as { type?: string }).type ?? 'Opaque')) {
        return fail(invalid('secrets', name, [{ field: 'type', message: `Invalid value: "${String((secret as { type?: string }).type)}": field is immutable` }]));
      }
      const object = secretObject(secret!, ns, current);
      if (dryRun) return ok(object);
      return ok(structuredClone(this.secrets.update(object)));
    }
    if (method === 'DELETE') {
      if (!current) return fail(secretNotFound(name));
      if (!dryRun) this.secrets.remove(ns, name);
      return ok({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind: 'secrets', uid: current.metadata.uid } });
    }
    return fail(failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
  }

  private secretProblem(secret: ApiObject | undefined, ns: string, name: string | undefined): ApiStatus | null {
    if (!secret || typeof secret !== 'object' || !secret.metadata) return failure(400, 'BadRequest', 'the body of the request was in an unknown format');
    if (secret.metadata.namespace && secret.metadata.namespace !== ns) {
      return failure(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    }
    const causes: { field: string; message: string }[] = [];
    if (!name) causes.push({ field: 'metadata.name', message: 'Required value: name or generateName is required' });
    else if (!validDnsSubdomain(name)) causes.push({ field: 'metadata.name', message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'` });
    const data = ((secret as { data?: Record<string, unknown> }).data ?? {});
    for (const [key, value] of Object.entries(data)) {
      if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
        causes.push({ field: `data[${key}]`, message: 'Invalid value: illegal base64 data' });
      }
    }
    if ((secret as { type?: string }).type === 'kubernetes.io/dockerconfigjson') {
      const document = data['.dockerconfigjson'];
      if (typeof document !== 'string') causes.push({ field: 'data[.dockerconfigjson]', message: 'Required value' });
      else if (parse(Buffer.from(document, 'base64').toString('utf8')) === undefined) {
        causes.push({ field: 'data[.dockerconfigjson]', message: 'Invalid value: "<secret contents redacted>": invalid character in JSON' });
      }
    }
    return causes.length > 0 ? invalid('secrets', name ?? '', causes) : null;
  }

  private routePolicies(method: string, ns: string, name: string | undefined, query: URLSearchParams, raw: string, headers: IncomingHttpHeaders): Answer {
    if (!this.namespaces.has(ns)) return fail(namespaceNotFound(ns));
    if (!name && method === 'GET') return this.list(this.networkPolicies, ns, query, headers, 'NetworkPolicyList', 'networking.k8s.io/v1');
    if (!name && method === 'POST') {
      const policy = parse(raw) as ApiObject;
      const policyName = policy?.metadata?.name;
      if (!policyName || !validDnsSubdomain(policyName)) return fail(invalid('networkpolicies', policyName ?? '', [{ field: 'metadata.name', message: 'Required value: name or generateName is required' }]));
      if (this.networkPolicies.get(ns, policyName)) return fail(alreadyExists('networkpolicies.networking.k8s.io', policyName));
      const object: ApiObject = { ...policy, kind: 'NetworkPolicy', apiVersion: 'networking.k8s.io/v1', metadata: { ...policy.metadata, namespace: ns, uid: '', resourceVersion: '' } };
      if (query.get('dryRun') === 'All') return { status: 201, body: object };
      return { status: 201, body: structuredClone(this.networkPolicies.add(object)) };
    }
    const policy = name ? this.networkPolicies.get(ns, name) : undefined;
    const missing = failure(404, 'NotFound', `networkpolicies.networking.k8s.io "${name}" not found`, { name, kind: 'networkpolicies' });
    if (name && method === 'GET') return policy ? ok(withType(policy, 'NetworkPolicy', 'networking.k8s.io/v1')) : fail(missing);
    if (name && method === 'DELETE') {
      if (!policy) return fail(missing);
      this.networkPolicies.remove(ns, name);
      return ok({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: 'networking.k8s.io', kind: 'networkpolicies', uid: policy.metadata.uid } });
    }
    return fail(failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
  }

  private list(store: ObjectStore, ns: string | null, query: URLSearchParams, headers: IncomingHttpHeaders, kind: string, apiVersion = 'v1'): Answer {
    if (ns !== null && !this.namespaces.has(ns)) return ok({ kind, apiVersion, metadata: { resourceVersion: String(this.clock.current()) }, items: [] });
    const matches = this.matcher(query);
    const items = store.list(ns).filter(matches).map((o) => structuredClone(o));
    const resourceVersion = String(this.clock.current());
    if (kind === 'PodList' && /as=Table/.test(headers.accept ?? '')) return ok(podTable(items, resourceVersion));
    return ok({ kind, apiVersion, metadata: { resourceVersion }, items: items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest) });
  }

  private matcher(query: URLSearchParams): (object: ApiObject) => boolean {
    const labels = labelSelector(query.get('labelSelector'));
    const fields = fieldSelector(query.get('fieldSelector'));
    return (o) => labels(o.metadata.labels ?? {}) && fields({
      'metadata.name': o.metadata.name,
      'metadata.namespace': o.metadata.namespace,
      'status.phase': String((o as any).status?.phase ?? ''),
    });
  }

  private watchTarget(s: string[]): { store: ObjectStore; namespace: string | null } | null {
    if (s.join('/') === 'api/v1/pods') return { store: this.pods, namespace: null };
    if (s[0] === 'api' && s[1] === 'v1' && s[2] === 'namespaces' && s[3] && s[4] === 'pods' && s.length === 5) return { store: this.pods, namespace: s[3] };
    if (s[0] === 'apis' && s[1] === 'networking.k8s.io' && s[3] === 'namespaces' && s[4] && s[5] === 'networkpolicies' && s.length === 6) {
      return { store: this.networkPolicies, namespace: s[4] };
    }
    return null;
  }

  /**
   * A watch: newline-delimited `{type, object}` JSON. Without `resourceVersion` (or "0") it
   * starts with a synthetic ADDED per matching object; with one, it replays what came after it
   * (an ERROR event with a 410 Expired Status when that is no longer kept). `timeoutSeconds` ends it.
   */
  private watch(res: ServerResponse, store: ObjectStore, ns: string | null, query: URLSearchParams): void {
    const matches = this.matcher(query);
    const inScope = (e: WatchEvent) => (ns === null || e.object.metadata.namespace === ns) && matches(e.object);
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'cache-control': 'no-cache, private' });
    res.flushHeaders();
    const write = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
    const from = query.get('resourceVersion');
    if (!from || from === '0') {
      for (const object of store.list(ns).filter(matches)) write('ADDED', object);
    } else {
      const missed = store.since(Number(from));
      if (missed === null) {
        write('ERROR', failure(410, 'Expired', `too old resource version: ${from} (${this.clock.current()})`));
        res.end();
        return;
      }
      for (const event of missed.filter(inScope)) write(event.type, event.object);
    }
    this.watches.add(res);
    const unsubscribe = store.onEvent((event) => {
      if (inScope(event)) write(event.type, event.object);
    });
    const seconds = Number(query.get('timeoutSeconds'));
    const timer = seconds > 0 ? setTimeout(() => res.end(), seconds * 1000) : undefined;
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      this.watches.delete(res);
    };
    res.on('close', done);
    res.on('finish', done);
  }

  /** The exec subresource: authenticated, the pod running, then the WebSocket bridge to `docker exec`. */
  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = this.record(req);
    const refuse = (status: ApiStatus) => {
      const body = JSON.stringify(status);
      socket.end(`HTTP/1.1 ${status.code} ${status.reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    };
    if (this.refusing) return void socket.destroy();
    if (!this.authorized(req.headers)) return refuse(unauthorized());
    const s = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (!(s[0] === 'api' && s[1] === 'v1' && s[2] === 'namespaces' && s[4] === 'pods' && s[6] === 'exec' && s.length === 7)) {
      return refuse(failure(404, 'NotFound', 'the server could not find the requested resource'));
    }
    const [ns, name] = [s[3]!, s[5]!];
    const pod = this.pods.get(ns, name) as any;
    if (!pod) return refuse(podNotFound(name));
    const q = url.searchParams;
    const container = q.get('container');
    if (container && container !== pod.spec.containers[0].name) {
      return refuse(failure(400, 'BadRequest', `container ${container} is not valid for pod ${name}`));
    }
    const containerId = this.containers.get(`${ns}/${name}`);
    if (!containerId || pod.status?.phase !== 'Running') {
      return refuse(failure(400, 'BadRequest', `unable to upgrade connection: container not found ("${pod.spec.containers[0].name}")`));
    }
    const command = q.getAll('command');
    if (command.length === 0) return refuse(failure(400, 'BadRequest', 'you must specify at least 1 command'));
    if (!negotiate(req.headers['sec-websocket-protocol'])) {
      return refuse(failure(400, 'BadRequest', 'none of the offered subprotocols is supported (v5.channel.k8s.io, v4.channel.k8s.io)'));
    }
    const flag = (key: string) => ['true', '1'].includes(q.get(key) ?? '');
    try {
      await this.exec.serve(req, socket, head, containerId, { command, stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr'), tty: flag('tty') });
    } catch (error) {
      refuse(failure(500, 'InternalError', `error executing command in container: ${(error as Error).message}`));
    }
  }
}

function isWatch(query: URLSearchParams): boolean {
  return ['true', '1'].includes(query.get('watch') ?? '');
}

function validatePod(name: string, pod: any): { field: string; message: string }[] {
  const causes: { field: string; message: string }[] = [];
  if (!name) causes.push({ field: 'metadata.name', message: 'Required value: name or generateName is required' });
  else if (!validDnsSubdomain(name)) causes.push({ field: 'metadata.name', message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'` });
  for (const [key, value] of Object.entries((pod.metadata.labels ?? {}) as Record<string, unknown>)) {
    if (!validLabelKey(key)) causes.push({ field: 'metadata.labels', message: `Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.'` });
    if (typeof value !== 'string' || !validLabelValue(value)) {
      causes.push({ field: 'metadata.labels', message: `Invalid value: "${String(value)}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (max 63)` });
    }
  }
  const containers = pod.spec?.containers;
  if (!Array.isArray(containers) || containers.length === 0) causes.push({ field: 'spec.containers', message: 'Required value' });
  else containers.forEach((c: any, i: number) => {
    if (!c?.name) causes.push({ field: `spec.containers[${i}].name`, message: 'Required value' });
    if (!c?.image) causes.push({ field: `spec.containers[${i}].image`, message: 'Required value' });
  });
  if (pod.spec?.restartPolicy && !['Always', 'OnFailure', 'Never'].includes(pod.spec.restartPolicy)) {
    causes.push({ field: 'spec.restartPolicy', message: `Unsupported value: "${pod.spec.restartPolicy}"` });
  }
  return causes;
}

/** A Secret as stored: type meta, `type` (default Opaque), the namespace; uid and creation kept across a replace. */
function secretObject(secret: ApiObject, ns: string, current: ApiObject | undefined): ApiObject {
  const { kind: _k, apiVersion: _a, metadata, ...rest } = secret;
  return {
    ...rest,
    kind: 'Secret',
    apiVersion: 'v1',
    type: (secret as { type?: string }).type ?? 'Opaque',
    metadata: {
      ...metadata,
      namespace: ns,
      uid: current?.metadata.uid ?? '',
      resourceVersion: current?.metadata.resourceVersion ?? '',
      ...(current ? { creationTimestamp: current.metadata.creationTimestamp } : {}),
    },
  };
}

function qosClass(spec: PodSpecView): string {
  const c = spec.containers?.[0];
  const limits = c?.resources?.limits ?? {};
  const requests = c?.resources?.requests ?? limits;
  if (limits.cpu && limits.memory && requests.cpu === limits.cpu && requests.memory === limits.memory) return 'Guaranteed';
  return limits.cpu || limits.memory || requests.cpu || requests.memory ? 'Burstable' : 'BestEffort';
}

function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return Array.from(randomBytes(5), (b) => alphabet[b % alphabet.length]).join('');
}

function withType(object: ApiObject, kind: string, apiVersion: string): ApiObject {
  return { ...structuredClone(object), kind, apiVersion };
}

function ok(body: unknown): Answer {
  return { status: 200, body };
}

function fail(status: ApiStatus): Answer {
  return { status: status.code, body: status };
}

function parse(raw: string): any {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}


function send(res: ServerResponse, answer: Answer): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
