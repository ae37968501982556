import type { ProposalRequest } from '../app/proposal-agent';

/** The user message of one proposal request: the snapshot, and the reasons the last attempt was rejected. */
export function proposalPrompt(request: ProposalRequest): string {
  const retry = request.previous_errors.length ? `\nYour previous proposal was rejected: ${request.previous_errors.join('; ')}` : '';
  return `Cycle ${request.cycle}. State snapshot:\n${JSON.stringify(request.snapshot)}\nPropose exactly one action as a JSON object.${retry}`;
}
