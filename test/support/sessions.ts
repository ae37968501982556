import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
// By path: the contracts index loads every DTO (and needs reflect-metadata first), a suite may import this before the stack.
import { callerSubject } from '../../libs/contracts/src/subjects';
import { TEST_ADMIN } from '@runledger/testing';

const ROOT = path.resolve(__dirname, '..', '..');

/** The harness's own doors for sessions: its `test-admin` is a caller of every case (TestStack.harnessCallerGrants). */
export const SESSION_START = callerSubject(TEST_ADMIN, 'sessions.start');
export const SESSION_GET = callerSubject(TEST_ADMIN, 'sessions.get');

/**
 * The files a session stack needs: a policy with a lane for the test MCP tools (copied from contract-v1 with
 * its own versions), agent profiles, the providers file and the MCP servers file. Returns the env to start
 * the services with.
 */
export async function sessionFixtures(opts: { stubBaseUrl: string; httpMcpUrl: string; profiles: object[]; laneTools: string[] }) {
  const dir = await mkdtemp(path.join(tmpdir(), 'sessions-'));
  const policyDir = path.join(dir, 'policy');
  const profilesDir = path.join(dir, 'agents');
  await Promise.all([mkdir(policyDir), mkdir(profilesDir)]);
  const lanes = (await readFile(path.join(ROOT, 'policy/contract-v1/lanes.yaml'), 'utf8')).replace(/^version: .*$/m, 'version: lanes-sessions-test.1');
  const roles = (await readFile(path.join(ROOT, 'policy/contract-v1/roles.yaml'), 'utf8')).replace(/^version: .*$/m, 'version: roles-sessions-test.1');
  await writeFile(path.join(policyDir, 'lanes.yaml'), `${lanes.trimEnd()}

  - name: TOOL_SESSION_TEST
    description: MCP tools of the session tests.
    allowed_callers: [SESSION_AGENT]
    actions:
      tool: [${opts.laneTools.join(', ')}]
    required_scope: [run_id]
    isolation: shared
    allows_cross_case: false
    prohibitions: []
`);
  await writeFile(path.join(policyDir, 'roles.yaml'), `${roles.trimEnd()}

  - name: SESSION_AGENT
    principal: agent
    description: LLM agent sessions of the tests.
    lanes: [TOOL_SESSION_TEST]
    prohibitions: [cross_case_lookup, external_export, shared_knowledge_write]
`);
  for (const p of opts.profiles) await writeFile(path.join(profilesDir, `${(p as { id: string }).id}.json`), JSON.stringify(p));
  const countFile = path.join(dir, 'mcp-executions.jsonl');
  await writeFile(countFile, '');
  const agentConfig = path.join(dir, 'agent-config.json');
  await writeFile(agentConfig, JSON.stringify({ providers: { stub: { baseUrl: opts.stubBaseUrl, apiKey: '${STUB_API_KEY}' } } }));
  const mcpFile = path.join(dir, 'mcp.json');
  await writeFile(mcpFile, JSON.stringify({
    mcpServers: {
      echo: { type: 'stdio', command: process.execPath, args: [path.join(ROOT, 'test/support/mcp/echo-server.js')], env: { MCP_COUNT_FILE: countFile }, queue: 'slow' },
      web: { type: 'http', url: opts.httpMcpUrl },
    },
    queues: { slow: { concurrent: 1 } },
  }));
  return {
    dir,
    env: { POLICY_DIR: policyDir, AGENT_PROFILES_DIR: profilesDir, RL_AGENT_CONFIG: agentConfig, STUB_API_KEY: 'sk-test', RL_MCP_SERVERS: mcpFile },
    /** Executions the stdio MCP server recorded (it survives service restarts: it appends to a file). */
    async stdioExecutions(): Promise<Array<{ tool: string; args: unknown }>> {
      const text = await readFile(countFile, 'utf8');
      return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { tool: string; args: unknown });
    },
  };
}

async function mkdir(p: string) {
  await (await import('node:fs/promises')).mkdir(p, { recursive: true });
}
