import { addNew, addPending, EMPTY_COUNTERS, type ContextCounters } from '../domain/context-guard';
import type { ReportRules } from '../domain/final-report/accept';
import type { ForcedFinalReason } from '../domain/notices';
import type { SessionConfig } from '../domain/session-config';
import { estimateMessageTokens } from '../domain/tokens';
import type { AccountingEntry, AIAgentResult, ConversationMessage, FinalReport, LlmAccountingEntry, SessionError, ToolAccountingEntry } from '../domain/types';
import type { LogLevel, SessionPorts } from '../ports';

type Omitted = 'type' | 'timestamp' | keyof SessionConfig['trace'];
export type LlmEntryInput = Omit<LlmAccountingEntry, Omitted>;
export type ToolEntryInput = Omit<ToolAccountingEntry, Omitted>;

/**
 * The one mutable object of a session: the permanent conversation, the accounting, the context counters
 * and the flags the contract names (forced final, toolBudgetExceeded). Everything the loop decides is
 * computed by pure functions and written back here.
 */
export class SessionState {
  readonly conversation: ConversationMessage[] = [];
  readonly accounting: AccountingEntry[] = [];
  counters: ContextCounters = EMPTY_COUNTERS;
  /** Set once the session must end with a final report; from then on no new tools run (§2). */
  forcedFinal: ForcedFinalReason | undefined;
  toolBudgetExceeded = false;
  /** maxTurns, lowered when a failed final report collapses the remaining turns (§1). */
  effectiveMaxTurns: number;
  /** §11: the next unused XML slot number; slots keep counting across turns. */
  nextSlot = 1;
  lastError: string | undefined;

  constructor(
    readonly config: SessionConfig,
    readonly ports: SessionPorts,
    readonly rules: ReportRules,
    readonly nonce: string,
  ) {
    this.effectiveMaxTurns = config.maxTurns;
  }

  nowMs(): number {
    return this.ports.clock.now().getTime();
  }

  log(level: LogLevel, event: string, message: string, data?: Record<string, unknown>): void {
    try {
      this.ports.logger?.log({ level, event, message, ...(data ? { data } : {}) });
    } catch {
      // A broken logger must not break the session (§2 Always Return Output).
    }
  }

  /** Appends a message whose tokens the next request will carry (prompt, notices that persist). */
  appendPending(message: ConversationMessage): void {
    this.conversation.push(message);
    this.counters = addPending(this.counters, estimateMessageTokens(message));
  }

  /** Appends a tool result of the current turn (§2 newCtxTokens); the caller has run the guard. */
  appendToolOutput(message: ConversationMessage): void {
    this.conversation.push(message);
    this.counters = addNew(this.counters, estimateMessageTokens(message));
  }

  /** Adds tool-result tokens to `new` before their message exists (XML-PAST is written once per turn). */
  countToolOutput(tokens: number): void {
    this.counters = addNew(this.counters, tokens);
  }

  /** Appends a message whose tokens were already counted with `countToolOutput`. */
  appendCounted(message: ConversationMessage): void {
    this.conversation.push(message);
  }

  /** The assistant's own output is already part of the provider-reported context. */
  appendAssistant(message: ConversationMessage): void {
    this.conversation.push(message);
  }

  async recordLlm(entry: LlmEntryInput): Promise<void> {
    await this.record({ type: 'llm', ...entry, timestamp: this.nowMs(), ...this.config.trace });
  }

  async recordTool(entry: ToolEntryInput): Promise<void> {
    await this.record({ type: 'tool', ...entry, timestamp: this.nowMs(), ...this.config.trace });
  }

  private async record(entry: AccountingEntry): Promise<void> {
    this.accounting.push(entry);
    try {
      await this.ports.recorder?.record(entry);
    } catch (e) {
      this.log('error', 'recorder_failed', 'the session recorder rejected an accounting entry', { error: String(e) });
    }
  }

  result(outcome: { finalReport?: FinalReport; error?: SessionError }): AIAgentResult {
    const success = outcome.finalReport?.status === 'success' && outcome.error === undefined;
    return {
      success,
      ...(outcome.finalReport ? { finalReport: outcome.finalReport } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
      conversation: [...this.conversation],
      accounting: [...this.accounting],
    };
  }
}
