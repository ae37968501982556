import { AppError } from '@runledger/kernel';
import type { SessionGateway } from '../../sessions/app/session.gateway';
import type { ProposalAnswer, ProposalRequest } from '../app/proposal-agent';
import { proposalPrompt } from './proposal-prompt';

/**
 * The proposal port served by an LLM agent session (issue 7): one session per proposal (in process, startOwn), its final
 * report taken as the proposal. The session is its own governed run (every model call on the log); its request id
 * derives from (campaign, cycle, attempt), so asking again after a crash joins the same session.
 */
export async function sessionProposal(sessions: Pick<SessionGateway, 'startOwn'>, spec: { agent: string; version?: string }, request: ProposalRequest, timeoutMs: number): Promise<ProposalAnswer> {
  const reply = await sessions.startOwn({
    agent: spec.agent, ...(spec.version ? { version: spec.version } : {}),
    prompt: proposalPrompt(request),
    request_id: `campaign:${request.campaign_id}:cycle:${request.cycle}:attempt:${request.attempt}`,
    correlation_id: request.campaign_id,
  }, { waitMs: timeoutMs, retryDelayMs: () => undefined });
  const info = { kind: 'session', agent: spec.agent, run_id: reply.run_id, status: reply.status, ...(reply.profile_version ? { profile_version: reply.profile_version } : {}), ...(reply.usage ? { usage: reply.usage } : {}) };
  if (reply.status === 'running') throw new AppError('RUN.TIMEOUT', 'The agent session did not finish in time; run the cycle again.');
  const report = reply.result?.finalReport as { content_json?: unknown; content?: unknown } | undefined;
  // A session that ended without a report proposes nothing valid: the verdict records it as invalid.
  const raw = report?.content_json ?? (typeof report?.content === 'string' ? parseJson(report.content) : (report?.content ?? null));
  return { raw, info };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
