import { runSession as runSessionLoop } from './app/run-session';
import type { SessionConfigInput } from './domain/session-config';
import type { AIAgentResult } from './domain/types';
import { randomNonce } from './infra/random-nonce';
import type { SessionPorts } from './ports';

/**
 * Runs one agent session (contract 002) and always returns an `AIAgentResult`, never throws (§2).
 * The composition edge: fills in the ports that have a sensible default (the XML nonce) and hands over
 * to the loop, which itself draws no randomness.
 */
export function runSession(input: SessionConfigInput, prompt: string, ports: SessionPorts): Promise<AIAgentResult> {
  return runSessionLoop(input, prompt, { ...ports, nonce: ports.nonce ?? randomNonce });
}
