import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { PromotionRequestDto, PromotionResult, SUBJECTS } from '@runledger/contracts';
import { RequestHandler, validateMessage } from '@runledger/messaging';
import { PromotionService } from '../app/promotion.service';

@Controller()
export class PromotionController {
  constructor(private readonly promotion: PromotionService) {}

  @RequestHandler(SUBJECTS.promotionPromote)
  promote(@Payload() raw: unknown): Promise<PromotionResult> {
    return this.promotion.promote(validateMessage(PromotionRequestDto, raw));
  }
}
