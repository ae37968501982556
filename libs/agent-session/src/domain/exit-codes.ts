import type { AIAgentResult } from './types';

/** §2 CLI Exit Codes. */
export const EXIT_CODES = {
  success: 0,
  failure: 1,
  initFailed: 3,
  invalidInput: 4,
  schemaInvalid: 5,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** What a CLI invocation came to; exit codes map categories, not error types (§2 note). */
export type CliOutcome =
  | { readonly kind: 'session'; readonly result: AIAgentResult }
  | { readonly kind: 'informational' }
  | { readonly kind: 'invalid_arguments' | 'config_error' | 'validation_error'; readonly message: string }
  | { readonly kind: 'mcp_init_failed' | 'init_failed'; readonly message: string }
  | { readonly kind: 'schema_validation_failed'; readonly message: string }
  | { readonly kind: 'internal_error'; readonly message: string };

export function exitCodeFor(outcome: CliOutcome): ExitCode {
  switch (outcome.kind) {
    case 'session':
      // §9: exiting 0 when success is false is a contract violation; auth/quota failures are 1 too (§3).
      if (outcome.result.error?.kind === 'invalid_schema') return EXIT_CODES.schemaInvalid;
      return outcome.result.success ? EXIT_CODES.success : EXIT_CODES.failure;
    case 'informational':
      return EXIT_CODES.success;
    case 'invalid_arguments':
    case 'config_error':
    case 'validation_error':
      return EXIT_CODES.invalidInput;
    case 'mcp_init_failed':
    case 'init_failed':
      return EXIT_CODES.initFailed;
    case 'schema_validation_failed':
      return EXIT_CODES.schemaInvalid;
    case 'internal_error':
      return EXIT_CODES.failure;
    default: {
      const _exhaustive: never = outcome;
      return _exhaustive;
    }
  }
}
