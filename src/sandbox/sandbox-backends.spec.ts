import { describe, expect, it } from 'vitest';
import { readEnvironment } from '../config/environment.js';
import { SANDBOX } from '../config/config-shape.js';
import { buildConfig } from '../config/load-service-config.js';
import { DEFAULT_SANDBOX, defaultServiceConfig } from '../config/service-config.js';
import type { Finding } from '../findings/finding.js';
import { createSandboxBackend } from './sandbox-backend.factory.js';
import { DEFAULT_SANDBOX_BACKEND, SANDBOX_BACKENDS, SANDBOX_BACKEND_NAMES, SandboxBackendKind, sandboxBackendNamed } from './sandbox-backends.js';

const sandboxOf = (raw: Record<string, unknown>) => {
  const findings: Finding[] = [];
  const config = buildConfig({ sandbox: raw }, readEnvironment({}), findings);
  return { sandbox: config.sandbox, findings };
};

describe('the sandbox backend registry', () => {
  it('lists each backend once, the default first, and is what the configuration accepts', () => {
    expect(new Set(SANDBOX_BACKEND_NAMES).size).toBe(SANDBOX_BACKENDS.length);
    expect(DEFAULT_SANDBOX_BACKEND).toBe(SANDBOX_BACKEND_NAMES[0]);
    expect(DEFAULT_SANDBOX.backend).toBe(DEFAULT_SANDBOX_BACKEND);
    expect(SANDBOX.keys.backend.values).toEqual(SANDBOX_BACKEND_NAMES);
    expect(sandboxBackendNamed('mainframe')).toBeUndefined();
  });

  it('says which backends isolate a run from the host, and so may run agents', () => {
    expect(SANDBOX_BACKENDS.filter((backend) => !backend.isolatesFromHost).map((backend) => backend.name)).toEqual([SandboxBackendKind.InProcess]);
  });

  it('shows the engine address before any probe (DOCKER_HOST first), and leaves the cluster address to a probe', () => {
    const engine = sandboxBackendNamed(SandboxBackendKind.ContainerEngine)!;
    expect(engine.target(DEFAULT_SANDBOX, {})).toBe('unix:///var/run/docker.sock');
    expect(engine.target({ ...DEFAULT_SANDBOX, engine: { host: 'tcp://engine:2375' } }, {})).toBe('tcp://engine:2375');
    expect(engine.target({ ...DEFAULT_SANDBOX, engine: { host: 'tcp://engine:2375' } }, { DOCKER_HOST: ' unix:///run/podman.sock ' })).toBe('unix:///run/podman.sock');
    expect(sandboxBackendNamed(SandboxBackendKind.ContainerOrchestrator)!.target(DEFAULT_SANDBOX, {})).toBeNull();
    expect(sandboxBackendNamed(SandboxBackendKind.InProcess)!.target(DEFAULT_SANDBOX, {})).toBeNull();
  });

  it('builds the configured backend, and one that says why for a name it does not know', async () => {
    const config = defaultServiceConfig();
    expect(createSandboxBackend(config, {}).kind).toBe(SandboxBackendKind.InProcess);
    const engine = createSandboxBackend({ ...config, sandbox: { ...config.sandbox, backend: SandboxBackendKind.ContainerEngine } }, {});
    expect(engine.kind).toBe(SandboxBackendKind.ContainerEngine);
    const unknown = createSandboxBackend({ ...config, sandbox: { ...config.sandbox, backend: 'mainframe' as SandboxBackendKind } }, {});
    expect(await unknown.probe()).toMatchObject({ ok: false, reason: 'sandbox backend mainframe is not available in this release' });
  });
});

describe("a backend's own keys under sandbox:", () => {
  it('are read by its descriptor: engine.host, orchestrator.namespace and kubeconfig', () => {
    const { sandbox, findings } = sandboxOf({ engine: { host: 'tcp://engine:2375' }, orchestrator: { namespace: 'runs', kubeconfig: '/etc/kube/config' } });
    expect(findings).toEqual([]);
    expect(sandbox.engine).toEqual({ host: 'tcp://engine:2375' });
    expect(sandbox.orchestrator).toEqual({ namespace: 'runs', kubeconfig: '/etc/kube/config' });
  });

  it('keep their defaults when left out, or when the block says nothing of a key', () => {
    expect(sandboxOf({}).sandbox).toEqual(DEFAULT_SANDBOX);
    expect(sandboxOf({ orchestrator: { kubeconfig: '/k' } }).sandbox.orchestrator).toEqual({ namespace: DEFAULT_SANDBOX.orchestrator.namespace, kubeconfig: '/k' });
  });

  it('are checked like the configuration\'s own: an unknown key is an advisory finding at its place', () => {
    const { findings } = sandboxOf({ engine: { host: 'tcp://engine:2375', tls: true }, orchestrator: { context: 'kind' } });
    expect(findings.map((f) => [f.field, f.severity])).toEqual([['sandbox.engine.tls', 'advisory'], ['sandbox.orchestrator.context', 'advisory']]);
  });
});
