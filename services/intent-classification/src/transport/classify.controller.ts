import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ClassifyIntentRequestDto, SUBJECTS, UserIntentReply } from '@runledger/contracts';
import { RequestHandler, validateMessage } from '@runledger/messaging';
import { IntentClassifier } from '../app/classifier';

export const CLASSIFIER = Symbol('CLASSIFIER');

@Controller()
export class ClassifyController {
  constructor(@Inject(CLASSIFIER) private readonly classifier: IntentClassifier) {}

  @RequestHandler(SUBJECTS.intentClassify)
  async classify(@Payload() raw: unknown): Promise<UserIntentReply> {
    const req = validateMessage(ClassifyIntentRequestDto, raw);
    const intent = await this.classifier.classify(req.message, req.history, req.pending_confirmation_active);
    return { ...intent, classifier: this.classifier.name };
  }
}
