// Test support only: the examples of contract 003, stored verbatim next to the schemas.
import analyzeLeads from '../../../../proto-contracts/schemas/proposals/examples/analyze-leads.example.json';
import createTask from '../../../../proto-contracts/schemas/proposals/examples/create-task.example.json';
import executeTool from '../../../../proto-contracts/schemas/proposals/examples/execute-tool.example.json';
import generateMessage from '../../../../proto-contracts/schemas/proposals/examples/generate-message.example.json';
import noOp from '../../../../proto-contracts/schemas/proposals/examples/no-op.example.json';
import persistArtifact from '../../../../proto-contracts/schemas/proposals/examples/persist-artifact.example.json';
import requestUserInput from '../../../../proto-contracts/schemas/proposals/examples/request-user-input.example.json';
import selectNextTask from '../../../../proto-contracts/schemas/proposals/examples/select-next-task.example.json';
import stateSnapshot from '../../../../proto-contracts/schemas/proposals/examples/state-snapshot.example.json';
import type { StateSnapshot } from './types';

export const PROPOSAL_EXAMPLES: Readonly<Record<string, unknown>> = {
  create_task: createTask,
  select_next_task: selectNextTask,
  execute_tool: executeTool,
  generate_message: generateMessage,
  analyze_leads: analyzeLeads,
  request_user_input: requestUserInput,
  persist_artifact: persistArtifact,
  no_op: noOp,
};

/** A fresh copy each call, so no test can leak changes into another. */
export const exampleSnapshot = (): StateSnapshot => JSON.parse(JSON.stringify(stateSnapshot)) as StateSnapshot;
