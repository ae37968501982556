/**
 * A caller never sees another caller's users: the task assistant and campaigns on a caller's own door
 * (rl.caller.<identity>.task-assistant.process | campaign.<op>), over the real stack as outside clients. Caller A is
 * the harness's `test-admin`, caller B the shipped `caller` identity; NATS lets each publish only on its own door.
 */
import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { CampaignView } from '@runledger/contracts';
import { deterministicUuid } from '@runledger/kernel';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { TEST_ADMIN } from '@runledger/testing';
import { runCli } from './support/cli';
import { TestStack } from './support/stack';
import { Conversation, DecisionReply, pendingFor, shown } from './support/task-assistant';

jest.setTimeout(180_000);

const REFUSED = /Permissions Violation/;
const B = 'caller';
/** A caller's door `op` (libs/contracts callerSubject). */
const callerSubject = (identity: string, op: string) => `rl.caller.${identity}.${op}`;
type Uuid = ReturnType<typeof randomUUID>;

type Answer = { ok: true; body: unknown } | { ok: false; error: { code: string; message: string } };

/** One user in one conversation of one door: `door` is the caller identity, `nc` its connection. */
class DoorConversation extends Conversation {
  constructor(stack: TestStack, private readonly nc: NatsConnection, private readonly door: string | null, user_id: string, conversation_id: Uuid) {
    super(stack, user_id, conversation_id);
  }

  override async say(message: string, extra: Record<string, unknown> = {}): Promise<DecisionReply> {
    const subject = this.door ? callerSubject(this.door, 'task-assistant.process') : 'agents.task-assistant.process';
    const m = await this.nc.request(subject, encodeJson({ user_id: this.user_id, conversation_id: this.conversation_id, message, ...extra }), { timeout: 60_000 });
    const r = decodeReply(m.data, m.headers);
    if (!r.ok) throw new Error(`wire error on ${subject} for ${JSON.stringify(message)}: ${JSON.stringify(r.error)}`);
    return r.body as DecisionReply;
  }
}

describe('Caller scope: the task assistant and campaigns on a caller\'s own door', () => {
  let stack: TestStack;
  let b: NatsConnection;

  beforeAll(async () => {
    stack = await TestStack.shared();
    b = await stack.connectAs(B);
  });
  afterAll(async () => {
    await b?.close();
    await stack?.stop();
  });

  const ask = async (nc: NatsConnection, subject: string, body: unknown): Promise<Answer> => {
    const m = await nc.request(subject, encodeJson(body), { timeout: 60_000 });
    return decodeReply(m.data, m.headers) as Answer;
  };
  /** A's (test-admin's) and B's (caller's) campaign doors, and the agents.* domain. */
  const asA = (op: string, body: unknown) => ask(stack.nc, callerSubject(TEST_ADMIN, `campaign.${op}`), body);
  const asB = (op: string, body: unknown) => ask(b, callerSubject(B, `campaign.${op}`), body);
  const asAgents = (op: string, body: unknown) => ask(stack.nc, `agents.campaign.${op}`, body);
  const viewOf = (a: Answer): CampaignView => {
    if (!a.ok) throw new Error(`campaign request failed: ${JSON.stringify(a.error)}`);
    return a.body as CampaignView;
  };
  const scripted = { kind: 'scripted' as const, proposals: [{ action_type: 'no_op', reason: 'campaign_complete', details: 'nothing to do' }] };

  it('Caller scope: two callers with the same user_id and conversation_id have separate conversations and tasks, and neither reaches the other\'s task by its id', async () => {
    const user = `u-${randomUUID()}`;
    const conversation = randomUUID();
    const a = new DoorConversation(stack, stack.nc, TEST_ADMIN, user, conversation);
    const bob = new DoorConversation(stack, b, B, user, conversation);

    await a.add('buy milk', 'call mom');
    // The reply names the user as the caller sent it.
    const added = await a.say('add task pay rent');
    expect(added.tool_calls).toEqual([{ tool_name: 'add_task', parameters: { user_id: user, description: 'pay rent' }, sequence: 1 }]);
    expect(await bob.list()).toEqual([]);

    // A's delete waits for A's confirmation; B's "yes" in the same user and conversation confirms nothing of A's, and
    // A's own "yes" still finds its confirmation.
    const asked = await a.say('delete buy milk');
    expect(asked.pending_action).toMatchObject({ action_type: 'DELETE_TASK', task_description: 'buy milk' });
    const bYes = await bob.say('yes');
    expect(bYes.tool_calls ?? []).toEqual([]);
    const confirmed = await a.say('yes');
    expect(confirmed.tool_calls?.map((c) => c.tool_name)).toEqual(['delete_task']);
    expect(await a.list()).toEqual(['call mom', 'pay rent']);

    // B naming A's task id in a confirmation it sends itself, or A's task by its words: no task of B's user.
    const taskId = await a.taskId('call mom');
    const forged = await bob.say('yes', { pending_confirmation: pendingFor(taskId, 'call mom') });
    // The delete is tried with A's id and finds nothing (the assistant then lists B's own tasks).
    expect(forged.tool_calls?.[0]).toMatchObject({ tool_name: 'delete_task', parameters: { task_id: taskId } });
    await bob.say('complete call mom');
    await bob.say('change pay rent to pay nothing');
    expect(await a.list()).toEqual(['call mom', 'pay rent']);
    expect(await bob.list()).toEqual([]);

    // Each run is attributed to its door's caller.
    const created = (await stack.runEvents(confirmed.run_id)).find((e) => e.type === 'RunCreated')?.data as { requested_by?: string; user_id?: string };
    expect(created).toMatchObject({ requested_by: TEST_ADMIN, user_id: `rl.caller.${TEST_ADMIN}.${user}` });
  });

  it('Caller scope: a door\'s reads of its task run (runs.get, runs.events) name the user as the caller sent it, as the reply does: its tool_calls never show Runledger\'s keyed form (contract 000 Never expose, README "A caller\'s own door")', async () => {
    const user = `u-${randomUUID()}`;
    const added = await new DoorConversation(stack, stack.nc, TEST_ADMIN, user, randomUUID()).say('add task pay rent');
    expect(added.tool_calls).toEqual([{ tool_name: 'add_task', parameters: { user_id: user, description: 'pay rent' }, sequence: 1 }]);
    const run = await ask(stack.nc, callerSubject(TEST_ADMIN, 'runs.get'), { run_id: added.run_id });
    expect(run).toMatchObject({ ok: true, body: { result: { decision: { tool_calls: added.tool_calls } } } });
    const followed = await ask(stack.nc, callerSubject(TEST_ADMIN, 'runs.events'), { run_id: added.run_id });
    expect(followed).toMatchObject({ ok: true, body: { terminal: true } });
    expect(JSON.stringify(followed)).not.toContain(`rl.caller.${TEST_ADMIN}.${user}`);
    expect(JSON.stringify(followed)).toContain(`"user_id":"${user}"`);
    // The log keeps the keyed user (the owner of the run, its tasks and its data key: what operators erase).
    expect((await stack.runEvents(added.run_id)).find((e) => e.type === 'RunCreated')?.data).toMatchObject({ user_id: `rl.caller.${TEST_ADMIN}.${user}` });
  });

  it('Caller scope: a user_id at the contract\'s limit (256 characters) works on a door, its keyed form past that limit included, and can be erased (probe)', async () => {
    const user = `u-${randomUUID()}`.padEnd(256, 'x');
    const a = new DoorConversation(stack, stack.nc, TEST_ADMIN, user, randomUUID());
    await a.add('long name task');
    expect(await a.list()).toEqual(['long name task']);
    // Its keyed form is longer than 256: `erase --user` takes it (it refused every id past 256 as a typo).
    const erased = await runCli(stack.url, ['erase', '--user', `rl.caller.${TEST_ADMIN}.${user}`], stack.cliEnv('admin'));
    expect(erased).toMatchObject({ code: 0, stderr: '' });
    expect(erased.stdout).toMatch(/data key destroyed/);
  });

  it('Caller scope: the agents.* task assistant works as before, keyed apart from the doors, and cannot name a door\'s user', async () => {
    const user = `u-${randomUUID()}`;
    const conversation = randomUUID();
    const trusted = new DoorConversation(stack, stack.nc, null, user, conversation);
    const a = new DoorConversation(stack, stack.nc, TEST_ADMIN, user, conversation);
    await trusted.add('water plants');
    await a.add('buy bread');
    expect(await trusted.list()).toEqual(['water plants']);
    expect(await a.list()).toEqual(['buy bread']);

    // A door's user by its keyed name is refused on agents.*, with the contract's invalid-input template, and reads nothing.
    const named = new DoorConversation(stack, stack.nc, null, `rl.caller.${TEST_ADMIN}.${user}`, conversation);
    const refused = await named.say('show my tasks');
    expect(refused).toMatchObject({ decision_type: 'RESPOND_ONLY', tool_calls: null });
    expect(shown(refused)).not.toContain('buy bread');
    expect(await a.list()).toEqual(['buy bread']);
  });

  it('Caller scope: another caller\'s campaign answers exactly as one that does not exist, for every operation, and its id stays free for that caller', async () => {
    const campaign = randomUUID();
    const mine = viewOf(await asA('create', { campaign_id: campaign, name: 'A outreach', agent: scripted }));
    expect(mine).toMatchObject({ campaign_id: campaign, name: 'A outreach', status: 'initializing' });
    viewOf(await asA('leads.import', { campaign_id: campaign, import_id: 'first', leads: [{ full_name: 'Jane Doe', profile_url: 'https://example.org/in/jane' }] }));
    expect(viewOf(await asA('start', { campaign_id: campaign }))).toMatchObject({ campaign_id: campaign, status: 'active' });

    const missing = randomUUID();
    const ops: [string, (id: string) => unknown][] = [
      ['get', (id) => ({ campaign_id: id })],
      ['start', (id) => ({ campaign_id: id })],
      ['pause', (id) => ({ campaign_id: id })],
      ['cycle', (id) => ({ campaign_id: id, request_id: 'r1' })],
      ['run', (id) => ({ campaign_id: id, request_id: 'r2' })],
      ['leads.import', (id) => ({ campaign_id: id, import_id: 'second', leads: [{ full_name: 'John Roe', profile_url: 'https://example.org/in/john' }] })],
    ];
    // The id A's campaign is kept under in the log, which the agents.* domain could compute: as absent there too.
    const keptAs = deterministicUuid('caller-campaign', TEST_ADMIN, campaign);
    for (const [op, body] of ops) {
      const absent = await asB(op, body(missing));
      expect({ op, absent }).toEqual({ op, absent: { ok: false, error: expect.objectContaining({ code: 'CAMPAIGN.NOT_FOUND' }) } });
      expect({ op, answer: await asB(op, body(campaign)) }).toEqual({ op, answer: absent });
      expect({ op, answer: await asAgents(op, body(campaign)) }).toEqual({ op, answer: await asAgents(op, body(missing)) });
      expect({ op, answer: await asAgents(op, body(keptAs)) }).toEqual({ op, answer: await asAgents(op, body(missing)) });
    }
    // A's campaign is untouched: still active, one import, no cycle.
    expect(viewOf(await asA('get', { campaign_id: campaign }))).toMatchObject({ campaign_id: campaign, name: 'A outreach', status: 'active', cycles: 0, leads: [expect.objectContaining({ full_name: 'Jane Doe' })] });

    // B creating the same campaign_id gets a campaign of its own (no CAMPAIGN.EXISTS to tell it A's is there).
    expect(viewOf(await asB('create', { campaign_id: campaign, name: 'B outreach', agent: scripted }))).toMatchObject({ campaign_id: campaign, name: 'B outreach', status: 'initializing', leads: [] });
    expect(viewOf(await asA('get', { campaign_id: campaign }))).toMatchObject({ name: 'A outreach', status: 'active' });
  });

  it('Caller scope: erasing one caller\'s user (erase --user rl.caller.<identity>.<user_id>) leaves another caller\'s user of the same user_id', async () => {
    const user = `u-${randomUUID()}`;
    const conversation = randomUUID();
    const a = new DoorConversation(stack, stack.nc, TEST_ADMIN, user, conversation);
    const bob = new DoorConversation(stack, b, B, user, conversation);
    await a.add('call the notary');
    await bob.add('book a flight');
    const erased = await runCli(stack.url, ['erase', '--user', `rl.caller.${TEST_ADMIN}.${user}`], stack.cliEnv('admin'));
    expect(erased).toMatchObject({ code: 0, stderr: '' });
    expect(erased.stdout).toMatch(/data key destroyed; .* 1 stored document\(s\)/);
    // A's user is refused from now on (DATA.ERASED), B's user of the same user_id is untouched.
    const body = { user_id: user, conversation_id: conversation, message: 'show my tasks' };
    const refused = await stack.waitFor(async () => {
      const r = await ask(stack.nc, callerSubject(TEST_ADMIN, 'task-assistant.process'), body);
      return r.ok ? undefined : r;
    }, 15_000);
    expect(refused).toMatchObject({ ok: false, error: { code: 'DATA.ERASED' } });
    expect(await bob.list()).toEqual(['book a flight']);
  });

  it('Caller scope: a caller asks on its own door, and publishing on another caller\'s door is refused by the server', async () => {
    const body = { user_id: `u-${randomUUID()}`, conversation_id: randomUUID(), message: 'show my tasks' };
    expect(await ask(b, callerSubject(B, 'task-assistant.process'), body)).toMatchObject({ ok: true });
    await expect(ask(b, callerSubject(TEST_ADMIN, 'task-assistant.process'), body)).rejects.toThrow(REFUSED);
    expect(viewOf(await asB('create', { campaign_id: randomUUID(), name: 'mine', agent: scripted }))).toMatchObject({ status: 'initializing' });
    for (const op of ['create', 'get', 'start', 'leads.import', 'pause', 'cycle', 'run']) {
      await expect(ask(b, callerSubject(TEST_ADMIN, `campaign.${op}`), { campaign_id: randomUUID() })).rejects.toThrow(REFUSED);
    }
  });
});
