/**
 * The published shape of @runledger/client, as an outside project gets it (issue 26 "Done when"): `npm pack` of
 * libs/client, installed into a scratch project outside the monorepo with npm, offline. Its dependencies are packed
 * from the monorepo's node_modules (this machine reaches no registry), each at the version the monorepo holds.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir, type TempDir } from '@runledger/testing';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
/** The monorepo's TypeScript compiler and Node types, to type-check a scratch file against the package's declarations. */
export const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
export const NODE_TYPES_ROOT = join(ROOT, 'node_modules', '@types');
const CLIENT_DIR = join(ROOT, 'libs', 'client');

export interface ScratchProject {
  dir: TempDir;
  /** The tarball `npm pack` made. */
  tarball: string;
  /**
   * Writes the script (an ES module) and its `config` (JSON, in `<file>.json`, named by RL_CONFIG) into the project,
   * runs `node <file>` there and parses the JSON it prints last.
   */
  runScript<T>(file: string, source: string, config: unknown): Promise<T>;
  /** Writes `file` into the project and runs `node <args>` there (e.g. the monorepo's tsc over it); its stdout. */
  node(file: string, source: string, args: string[]): Promise<string>;
  remove(): Promise<void>;
}

/** Where a package of the monorepo's node_modules lives, as Node resolves it from `from`. */
function packageDir(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    try {
      readFileSync(join(candidate, 'package.json'));
      return candidate;
    } catch {
      if (dirname(dir) === dir) throw new Error(`${name} is not installed (from ${from})`);
    }
  }
}

/** The client's runtime dependency closure, as installed in the monorepo. */
function dependencyClosure(): string[] {
  const seen = new Set<string>();
  const visit = (name: string, from: string) => {
    const dir = packageDir(name, from);
    if (seen.has(dir)) return;
    seen.add(dir);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir);
  };
  const client = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const dep of Object.keys(client.dependencies)) visit(dep, ROOT);
  return [...seen];
}

async function pack(dir: string, into: string, ignoreScripts: boolean): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--pack-destination', into, ...(ignoreScripts ? ['--ignore-scripts'] : []), dir], { cwd: into, maxBuffer: 16 * 1024 * 1024 });
  return join(into, stdout.trim().split('\n').pop()!);
}

/** Packs the client (its prepack builds it), makes a scratch project in a temp dir and installs the tarball offline. */
export async function installClientInScratchProject(): Promise<ScratchProject> {
  const dir = await tempDir('runledger-client-scratch-');
  const packs = join(dir.path, 'packs');
  const project = join(dir.path, 'project');
  await run('mkdir', ['-p', packs, project]);
  const tarball = await pack(CLIENT_DIR, packs, false);
  const deps = [];
  for (const d of dependencyClosure()) deps.push(await pack(d, packs, true));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'runledger-client-scratch', version: '1.0.0', private: true, type: 'module' }, null, 2));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, ...deps], { cwd: project, maxBuffer: 16 * 1024 * 1024 });
  return {
    dir, tarball,
    async runScript<T>(file: string, source: string, config: unknown): Promise<T> {
      writeFileSync(join(project, file), source);
      writeFileSync(join(project, `${file}.json`), JSON.stringify(config));
      const { stdout } = await run(process.execPath, [file], { cwd: project, env: { PATH: process.env.PATH ?? '', RL_CONFIG: join(project, `${file}.json`) }, maxBuffer: 16 * 1024 * 1024 });
      return JSON.parse(stdout.trim().split('\n').pop()!) as T;
    },
    async node(file: string, source: string, args: string[]): Promise<string> {
      writeFileSync(join(project, file), source);
      return (await run(process.execPath, args, { cwd: project, env: { PATH: process.env.PATH ?? '' }, maxBuffer: 16 * 1024 * 1024 })).stdout;
    },
    remove: () => dir.remove(),
  };
}
