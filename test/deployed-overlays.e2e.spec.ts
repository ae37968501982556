import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import YAML from 'yaml';
import { join } from 'node:path';
import { findNatsServerBinary, tempDir } from '@runledger/testing';

/* eslint-disable @typescript-eslint/no-require-imports */
const { renderOverlay, objectNamed, entriesOf, ROOT } = require('../scripts/lib/deployed/manifests.js');
const k8sNats = require('../scripts/render-k8s-nats.js') as { natsPassword(): string };
const { loadCompose } = require('../scripts/lib/deployed/compose.js');
const { DEFAULT_NATS_PORT } = require('../scripts/lib/nats-url.js') as { DEFAULT_NATS_PORT: number }; // where npm start's address is defined
/* eslint-enable @typescript-eslint/no-require-imports */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; spec: any; data?: Record<string, string> };
const OVERLAYS = ['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/production'];
const WORKLOADS = ['intent-classification', 'decision', 'tool-gateway', 'db-write', 'promotion', 'export', 'audit-ledger'];

/**
 * Issue 24: every overlay renders with kubectl's kustomize and every rendered object is valid against the Kubernetes
 * JSON schemas (kubernetes-models; KEDA's CRDs from @kubernetes-models/keda), and the production overlay is what
 * k8s/README.md says it is.
 */
describe('Issue 24 every overlay renders and validates', () => {
  it.each(OVERLAYS)('Issue 24 %s renders and every object is valid against the Kubernetes schemas', (overlay) => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/lib/deployed/validate.mjs'), overlay], { encoding: 'utf8' });
    const report = JSON.parse(run.stdout.trim()) as { objects: string[]; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(run.status).toBe(0);
    expect(report.objects.length).toBeGreaterThan(25);
  });

  it('Issue 24 the schema check has teeth: an invalid object (a string replica count) is reported', async () => {
    const dir = await tempDir('runledger-invalid-overlay-');
    try {
      writeFileSync(join(dir.path, 'kustomization.yaml'), 'resources: [bad.yaml]\n');
      writeFileSync(join(dir.path, 'bad.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: bad }\nspec:\n  replicas: two\n  selector: { matchLabels: { a: b } }\n  template: { metadata: { labels: { a: b } }, spec: { containers: [ { name: c, image: i } ] } }\n');
      const run = spawnSync(process.execPath, [join(ROOT, 'scripts/lib/deployed/validate.mjs'), dir.path], { encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(JSON.parse(run.stdout.trim()).problems[0]).toMatchObject({ kind: 'Deployment', name: 'bad', message: expect.stringMatching(/replicas/) });
    } finally {
      await dir.remove();
    }
  });

  it('Issue 24 asyncapi servers are what npm start, compose and the overlays serve, with their security', () => {
    const doc = YAML.parse(readFileSync(join(ROOT, 'proto-contracts', 'asyncapi.yaml'), 'utf8'));
    const servers = doc.servers as Record<string, { host: string; protocol: string; security: Array<{ $ref: string }> }>;
    expect(servers.local.host).toBe(`127.0.0.1:${DEFAULT_NATS_PORT}`);
    const compose = loadCompose({}).services.nats.ports as string[];
    expect(compose).toContain(`${servers.compose.host}:4222`); // published on the host's loopback, as the server says
    const url = (overlay: string) => entriesOf(objectNamed(renderOverlay(overlay), 'ConfigMap', 'runledger-config')).NATS_URL.toString();
    expect(`${servers['kubernetes-dev'].protocol}://${servers['kubernetes-dev'].host}`).toBe(url('k8s/overlays/dev').replace('runledger-nats:', 'runledger-nats.runledger.svc:'));
    expect(`${servers['kubernetes-production'].protocol}://${servers['kubernetes-production'].host}`).toBe(url('k8s/overlays/production').replace('runledger-nats:', 'runledger-nats.runledger.svc:'));
    for (const server of Object.values(servers)) expect(server.security.length).toBe(1);
    expect(servers.local.security[0].$ref).toBe('#/components/securitySchemes/nkey');
  });

  describe('Issue 24 production overlay', () => {
    const objects: Obj[] = renderOverlay('k8s/overlays/production');
    const workloads = objects.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind));
    const conf = entriesOf(objectNamed(objects, 'ConfigMap', 'runledger-nats-config'))['nats.conf'].toString();

    it('Issue 24 production overlay: the image is the overlay\'s parameter, never a placeholder registry', () => {
      const images = workloads.flatMap((w) => [...(w.spec.template.spec.initContainers ?? []), ...w.spec.template.spec.containers].map((c: { image: string }) => c.image));
      expect(images.filter((i) => i.includes('example.com'))).toEqual([]);
      expect(new Set(images.filter((i) => i.startsWith('runledger')))).toEqual(new Set(['runledger:0.1.0']));
    });

    it('Issue 24 production overlay: TLS for clients and mutually authenticated TLS routes; every process connects with tls:// and the CA', () => {
      expect(conf).toMatch(/^tls \{[^}]*cert_file: "\/etc\/nats\/tls\/tls\.crt"/m);
      expect(conf).toMatch(/cluster \{[\s\S]*tls \{[^}]*verify: true/);
      const config = entriesOf(objectNamed(objects, 'ConfigMap', 'runledger-config'));
      expect(config.NATS_URL.toString()).toBe('tls://runledger-nats:4222');
      const ca = config.NATS_TLS_CA_FILE.toString();
      for (const w of workloads.filter((o) => o.metadata.name !== 'runledger-nats')) {
        const spec = w.spec.template.spec;
        for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
          const mounts = (c.volumeMounts ?? []).map((m: { mountPath: string }) => m.mountPath);
          expect([w.metadata.name, c.name, mounts.some((m: string) => ca.startsWith(m + '/'))]).toEqual([w.metadata.name, c.name, true]);
        }
      }
      const nats = objectNamed(objects, 'StatefulSet', 'runledger-nats');
      expect(nats.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'tls').secret.secretName).toBe('runledger-nats-tls');
    });

    it('Issue 24 production overlay: its NATS configuration is accepted by nats-server with TLS files in place', async () => {
      const dir = await tempDir('runledger-prod-nats-');
      try {
        const f = (n: string) => join(dir.path, n);
        const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
        openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('tls.key'), '-out', f('tls.crt'), '-days', '1', '-subj', '/CN=runledger-nats');
        openssl('x509', '-in', f('tls.crt'), '-out', f('ca.crt'));
        // This machine's nats-server is 2.9: the 2.10-only sync_interval line is left out (k8s/README.md "NATS").
        writeFileSync(f('nats.conf'), conf.replaceAll('/etc/nats/tls/', dir.path + '/').replace(/^\s*sync_interval:.*$/m, '').replace('/data/jetstream', f('js')).replace('/var/run/nats/nats.pid', f('nats.pid')));
        const env: Record<string, string> = { PATH: process.env.PATH ?? '', POD_NAME: 'runledger-nats-0' };
        for (const v of conf.match(/\$[A-Z_]+_PASSWORD/g) ?? []) env[v.slice(1)] = k8sNats.natsPassword();
        const run = spawnSync(findNatsServerBinary(), ['-t', '-c', f('nats.conf')], { env, encoding: 'utf8' });
        expect({ status: run.status, out: run.stderr + run.stdout }).toMatchObject({ status: 0 });
      } finally {
        await dir.remove();
      }
    });

    it('Issue 24 production overlay: every Secret is external (none generated) and every container has resource requests and limits', () => {
      expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
      for (const w of workloads) {
        for (const c of [...(w.spec.template.spec.initContainers ?? []), ...w.spec.template.spec.containers]) {
          expect([w.metadata.name, c.name, Boolean(c.resources?.requests?.cpu && c.resources?.requests?.memory && c.resources?.limits?.memory)]).toEqual([w.metadata.name, c.name, true]);
        }
      }
    });

    it('Issue 24 production overlay: default deny, a NetworkPolicy per service, and the NATS monitoring port open only to KEDA and Prometheus', () => {
      const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
      const deny = policies.find((p) => p.metadata.name === 'runledger-default-deny')!;
      expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
      for (const name of WORKLOADS) {
        const own = policies.filter((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === name);
        expect([name, own.length]).toEqual([name, 1]);
        expect(own[0].spec.policyTypes).toEqual(['Ingress', 'Egress']);
      }
      const nats = policies.find((p) => p.metadata.name === 'runledger-nats')!;
      const monitoring = nats.spec.ingress.filter((r: { ports: Array<{ port: number }> }) => r.ports.some((p) => p.port === 8222));
      expect(monitoring).toHaveLength(1);
      expect(monitoring[0].from.map((f: { namespaceSelector: { matchLabels: Record<string, string> } }) => f.namespaceSelector.matchLabels['kubernetes.io/metadata.name'])).toEqual(['keda', 'monitoring']);
      expect(monitoring[0].from.every((f: { podSelector?: { matchLabels?: object } }) => Object.keys(f.podSelector?.matchLabels ?? {}).length > 0)).toBe(true);
    });

    it('Issue 24 production overlay: KEDA scales decision on its inbox consumer\'s lag with CPU as fallback, the choke points on CPU, never the ledger', () => {
      const scaled = objects.filter((o) => o.kind === 'ScaledObject');
      const targets = scaled.map((s) => s.spec.scaleTargetRef.name).sort();
      expect(targets).toEqual(['db-write', 'decision', 'tool-gateway']);
      for (const s of scaled) {
        expect(objectNamed(objects, 'Deployment', s.spec.scaleTargetRef.name)).toBeTruthy();
        expect(s.spec.minReplicaCount).toBeGreaterThanOrEqual(2);
        expect(s.spec.triggers.some((t: { type: string }) => t.type === 'cpu')).toBe(true);
      }
      const decision = scaled.find((s) => s.metadata.name === 'decision')!;
      const lag = decision.spec.triggers.find((t: { type: string }) => t.type === 'nats-jetstream');
      expect(lag.metadata).toMatchObject({ account: 'RUNLEDGER', stream: 'RUNLEDGER_LOG', consumer: 'decision-inbox' });
      expect(lag.metadata.natsServerMonitoringEndpoint).toMatch(/^runledger-nats[\w.-]*:8222$/);
      expect(objects.filter((o) => o.kind === 'HorizontalPodAutoscaler')).toEqual([]); // KEDA owns the HPA; a second one would fight it
    });
  });
});
