import 'reflect-metadata';
import { contractValidator } from '@runledger/contract-schemas';
import { AppError } from '@runledger/kernel';
import { validateMessage } from '@runledger/messaging';
import { SessionStartRequestDto } from './session.dto';
import { DecisionContextDto } from './task-assistant.dto';

/** User ids an operator could not type back to `runledger erase --user` (probe finding: `fr\u0000ank`). */
const UNTYPABLE = ['fr\u0000ank', 'tab\tuser', 'line\nbreak', 'del\u007f', 'c1\u0085'];

const requests = [
  { dto: DecisionContextDto, schema: 'schemas/task-assistant/decision-context.schema.json', ok: { user_id: 'alice', message: 'hi', conversation_id: '11111111-1111-4111-8111-111111111111' } },
  { dto: SessionStartRequestDto, schema: 'schemas/sessions/session-start-request.schema.json', ok: { agent: 'task-helper', prompt: 'hi', user_id: 'alice' } },
] as const;

function details(dto: new () => object, raw: unknown): string[] | 'accepted' {
  try {
    validateMessage(dto, raw);
    return 'accepted';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return err.details ?? [];
  }
}

describe('Bad input gets a specific error: a user id holds no control character (erasable by what an operator can type)', () => {
  it.each(requests)('$schema: the DTO and the schema refuse each, naming user_id; printable ids (unicode too) pass', ({ dto, schema, ok }) => {
    const validate = contractValidator(schema);
    for (const user_id of UNTYPABLE) {
      expect({ user_id, problems: details(dto, { ...ok, user_id }) }).toEqual({ user_id, problems: ['user_id must be a user id without control characters'] });
      expect({ user_id, schema: validate({ ...ok, user_id }) }).toEqual({ user_id, schema: false });
    }
    for (const user_id of ['alice', 'rl.caller.caller.kim', 'Zoë 🙂', 'a b']) {
      expect({ user_id, dto: details(dto, { ...ok, user_id }), schema: validate({ ...ok, user_id }) }).toEqual({ user_id, dto: 'accepted', schema: true });
    }
  });
});
