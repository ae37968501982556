export * from './generated';
export * from './subjects';
export * from './dto/task-assistant.dto';
export * from './dto/runtime.dto';
export * from './dto/governed-runs.dto';
export * from './dto/agent-run.dto';
export * from './dto/operations.dto';
