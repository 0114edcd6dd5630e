// deploy/kubernetes is a kustomize base an operator applies as it is (docs/deployment.md). These
// tests render it with kubectl, as `kubectl apply -k` would, validate every object against the
// Kubernetes 1.36 API schema (the release docs/deployment.md names), and hold the base to what
// the docs promise: two replicas with /health probes and a grace period longer than the
// server's shutdown, non-root and read-only, secrets only referenced, the sandbox Role confined
// to the sandbox namespace, the network closed where it should be.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { readEnvironment } from '../../src/config/environment.js';
import { loadServiceConfig } from '../../src/config/load-service-config.js';
import { jsonSchemaErrors, type KubernetesObject, SCHEMA_RELEASE, unknownFieldErrors } from './kubernetes-schema.js';

const run = promisify(execFile);
const BASE = 'deploy/kubernetes';
const SERVER_NS = 'pipeline-service';
const SANDBOX_NS = 'pipeline-service-sandboxes';
/** The server's shutdown: 10 s for running pipelines, 5 s for interrupted ones to settle (src/runs/run-consumer.service.ts), plus the preStop pause. */
const SHUTDOWN_SECONDS = 10 + 5 + 5;

const kubectl = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'kubectl')).find((path) => existsSync(path));
const skip = kubectl ? null : 'kubectl is not on PATH (it renders the kustomize base)';

describe.skipIf(skip !== null)(`deploy/kubernetes${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let objects: KubernetesObject[];
  const find = (kind: string, name: string) => {
    const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
    if (!found) throw new Error(`the rendered base has no ${kind} ${name}`);
    return found as any;
  };

  beforeAll(async () => {
    const { stdout } = await run(kubectl!, ['kustomize', BASE], { timeout: 30_000 });
    objects = parseAllDocuments(stdout).map((doc) => {
      if (doc.errors.length > 0) throw doc.errors[0];
      return doc.toJS() as KubernetesObject;
    });
  });

  it('renders the objects of the base, in the namespaces they belong to', () => {
    const rendered = objects.map((o) => `${o.kind} ${o.metadata.namespace ?? '-'}/${o.metadata.name}`).sort();
    expect(rendered).toEqual([
      `ConfigMap ${SERVER_NS}/pipeline-service-config`,
      `Deployment ${SERVER_NS}/pipeline-service`,
      `Job ${SERVER_NS}/pipeline-service-migrate`,
      `Namespace -/${SERVER_NS}`,
      `Namespace -/${SANDBOX_NS}`,
      `NetworkPolicy ${SANDBOX_NS}/default-deny`,
      `NetworkPolicy ${SERVER_NS}/pipeline-service-server`,
      `PodDisruptionBudget ${SERVER_NS}/pipeline-service`,
      `Role ${SANDBOX_NS}/pipeline-service-sandboxes`,
      `RoleBinding ${SANDBOX_NS}/pipeline-service-sandboxes`,
      `Service ${SERVER_NS}/pipeline-service`,
      `ServiceAccount ${SERVER_NS}/pipeline-service`,
    ]);
  });

  it(`every object validates against the Kubernetes ${SCHEMA_RELEASE} JSON Schema of its kind`, async () => {
    const failures: string[] = [];
    for (const object of objects) {
      const errors = await jsonSchemaErrors(object);
      if (errors) failures.push(`${object.kind} ${object.metadata.name}: ${errors}`);
    }
    expect(failures).toEqual([]);
  });

  it(`every field of every object is one Kubernetes ${SCHEMA_RELEASE} defines (strict field validation)`, () => {
    const failures = objects.flatMap((object) => unknownFieldErrors(object).map((e) => `${object.kind} ${object.metadata.name}: ${e}`));
    expect(failures).toEqual([]);
  });

  it('the validators refuse what a cluster refuses (a mistyped field, a wrong type, a missing required field)', async () => {
    const deployment = find('Deployment', 'pipeline-service');
    const container = deployment.spec.template.spec.containers[0];
    const mistyped = structuredClone(deployment);
    mistyped.spec.template.spec.containers[0] = { ...container, readinesProbe: container.readinessProbe };
    expect(unknownFieldErrors(mistyped)).toEqual(['/spec/template/spec/containers/0/readinesProbe: unknown field (V1Container has no "readinesProbe")']);
    expect(await jsonSchemaErrors({ ...deployment, spec: { ...deployment.spec, replicas: '2' } })).toContain('/spec/replicas must be integer');
    const { selector: _selector, ...withoutSelector } = deployment.spec;
    expect(await jsonSchemaErrors({ ...deployment, spec: withoutSelector })).toContain('selector');
  });

  it('the Deployment: two replicas, /health probes, a grace period longer than the shutdown, non-root and read-only', () => {
    const deployment = find('Deployment', 'pipeline-service');
    const pod = deployment.spec.template.spec;
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    expect(pod.serviceAccountName).toBe('pipeline-service');
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(SHUTDOWN_SECONDS);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.containers).toHaveLength(1);
    const [server] = pod.containers;
    expect(server.ports).toEqual([{ name: 'http', containerPort: 8081, protocol: 'TCP' }]);
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) expect(server[probe].httpGet, probe).toEqual({ path: '/health', port: 'http' });
    expect(server.lifecycle.preStop.exec.command).toEqual(['sleep', '5']);
    expect(server.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(server.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    expect(server.resources.limits.memory).toEqual(expect.any(String));
    // The only writable places: SERVICE_DATA_DIR and /tmp, each a volume; the config read-only.
    const env = Object.fromEntries(server.env.map((e: any) => [e.name, e]));
    expect(env.SERVICE_DATA_DIR.value).toBe('/var/lib/pipeline-service');
    expect(env.SERVICE_CONFIG.value).toBe('/app/config/service.yml');
    const volumes = Object.fromEntries(pod.volumes.map((v: any) => [v.name, v]));
    const mounts = Object.fromEntries(server.volumeMounts.map((m: any) => [m.mountPath, m]));
    expect(volumes[mounts['/var/lib/pipeline-service'].name].emptyDir).toBeDefined();
    expect(volumes[mounts['/tmp'].name].emptyDir).toBeDefined();
    expect(mounts['/app/config'].readOnly).toBe(true);
    expect(mounts['/app/config'].subPath).toBeUndefined(); // a subPath mount never sees ConfigMap updates
    expect(volumes[mounts['/app/config'].name].configMap.name).toBe('pipeline-service-config');
  });

  it('secrets are references to Secrets the operator creates, never values', () => {
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    const deployment = find('Deployment', 'pipeline-service');
    const [server] = deployment.spec.template.spec.containers;
    const fromSecret = (name: string) => server.env.find((e: any) => e.name === name)?.valueFrom?.secretKeyRef;
    for (const name of ['DATABASE_URL', 'KVSTORE_URL', 'SERVICE_SECRETS_KEY']) expect(fromSecret(name), name).toEqual({ name: 'pipeline-service', key: name });
    for (const name of ['PLATFORM_A_WEBHOOK_SECRET', 'PLATFORM_B_WEBHOOK_TOKEN', 'PLATFORM_C_WEBHOOK_SECRET', 'PLATFORM_D_WEBHOOK_SECRET', 'SERVICE_ADMIN_GRANT']) {
      expect(fromSecret(name), name).toEqual({ name: 'pipeline-service', key: name, optional: true });
    }
    // Whatever holds a secret is given by reference only: no literal value for any of them.
    const literal = server.env.filter((e: any) => 'value' in e).map((e: any) => e.name);
    expect(literal.sort()).toEqual(['LOG_FORMAT', 'PORT', 'SERVICE_CONFIG', 'SERVICE_DATA_DIR']);
    expect(server.envFrom).toEqual([{ secretRef: { name: 'pipeline-service-references', optional: true } }]);
  });

  it('the migration is a Job of the same image running `migrate` against DATABASE_URL from the Secret', () => {
    const job = find('Job', 'pipeline-service-migrate');
    const deployment = find('Deployment', 'pipeline-service');
    const pod = job.spec.template.spec;
    const [migrate] = pod.containers;
    expect(migrate.image).toBe(deployment.spec.template.spec.containers[0].image);
    expect(migrate.args).toEqual(['node', 'dist/cli/main.js', 'migrate']);
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(migrate.env.find((e: any) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef).toEqual({ name: 'pipeline-service', key: 'DATABASE_URL' });
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(migrate.securityContext.readOnlyRootFilesystem).toBe(true);
  });

  it('the Service and the PodDisruptionBudget select the server pods (and not the migration)', () => {
    const podLabels = find('Deployment', 'pipeline-service').spec.template.metadata.labels;
    const jobLabels = find('Job', 'pipeline-service-migrate').spec.template.metadata.labels;
    const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
    const service = find('Service', 'pipeline-service');
    const pdb = find('PodDisruptionBudget', 'pipeline-service');
    expect(selects(service.spec.selector, podLabels)).toBe(true);
    expect(selects(service.spec.selector, jobLabels)).toBe(false);
    expect(service.spec.ports).toEqual([{ name: 'http', port: 8081, targetPort: 'http', protocol: 'TCP' }]);
    expect(selects(pdb.spec.selector.matchLabels, podLabels)).toBe(true);
    expect(selects(pdb.spec.selector.matchLabels, jobLabels)).toBe(false);
    expect(pdb.spec.minAvailable).toBe(1);
  });

  it('the sandbox Role grants what the container-orchestrator backend uses, in the sandbox namespace only, to the server account', () => {
    expect(objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding')).toEqual([]);
    expect(objects.filter((o) => o.kind === 'Role' || o.kind === 'RoleBinding').map((o) => o.metadata.namespace)).toEqual([SANDBOX_NS, SANDBOX_NS]);
    const role = find('Role', 'pipeline-service-sandboxes');
    const grants = role.rules.flatMap((rule: any) => rule.resources.flatMap((resource: string) => rule.verbs.map((verb: string) =>
      `${rule.apiGroups[0] || 'core'} ${resource} ${verb}${rule.resourceNames ? ` (${rule.resourceNames.join(',')})` : ''}`)));
    expect(grants.sort()).toEqual([
      'core pods create', 'core pods delete', 'core pods get', 'core pods list', 'core pods watch',
      'core pods/exec create', 'core pods/exec get',
      'core secrets create', 'core secrets update (pipeline-service-registry)',
      'networking.k8s.io networkpolicies create',
    ].sort());
    const binding = find('RoleBinding', 'pipeline-service-sandboxes');
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pipeline-service-sandboxes' });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'pipeline-service', namespace: SERVER_NS }]);
    expect(find('ServiceAccount', 'pipeline-service').metadata.namespace).toBe(SERVER_NS);
  });

  it('network policies: only TCP 8081 reaches the server; nothing enters or leaves the sandbox namespace', () => {
    const server = find('NetworkPolicy', 'pipeline-service-server');
    expect(server.spec.podSelector.matchLabels).toEqual(find('Deployment', 'pipeline-service').spec.selector.matchLabels);
    expect(server.spec.policyTypes).toEqual(['Ingress']);
    expect(server.spec.ingress).toEqual([{ ports: [{ protocol: 'TCP', port: 8081 }] }]);
    const sandboxes = find('NetworkPolicy', 'default-deny');
    expect(sandboxes.metadata.namespace).toBe(SANDBOX_NS);
    expect(sandboxes.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
  });

  it("the ConfigMap's service.yml loads without a finding and sends sandboxes to the namespace the Role covers", async () => {
    const configMap = find('ConfigMap', 'pipeline-service-config');
    expect(Object.keys(configMap.data)).toEqual(['service.yml']);
    const dir = await mkdtemp(join(tmpdir(), 'deploy-k8s-'));
    try {
      const file = join(dir, 'service.yml');
      await writeFile(file, configMap.data['service.yml']);
      const { config, findings } = loadServiceConfig(readEnvironment({ SERVICE_CONFIG: file }));
      expect(findings).toEqual([]);
      expect(config.sandbox.backend).toBe('container-orchestrator');
      expect(config.sandbox.network).toBe('none');
      expect(config.sandbox.orchestrator).toEqual({ namespace: SANDBOX_NS, kubeconfig: null });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('both namespaces enforce the restricted Pod Security Standard', () => {
    for (const name of [SERVER_NS, SANDBOX_NS]) expect(find('Namespace', name).metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });
});
