import { IsIn, IsInt, IsOptional, IsString, Min, MinLength } from 'class-validator';
import { Param } from 'toolwright';

export const TOPICS = ['greeting', 'order_status', 'refund', 'access_denied', 'preference', 'other'] as const;
export type Topic = (typeof TOPICS)[number];

/**
 * What the desk answers each message with (`output: TicketSummary`): the reply the customer reads,
 * and the fields a help-desk system files the exchange under. The model is told this schema; an
 * answer that does not match goes back to it with the field errors.
 */
export class TicketSummary {
  @Param({ description: 'What the desk says to the customer, in one or two sentences' })
  @IsString()
  @MinLength(1)
  reply!: string;

  @Param({ description: 'What the message was about' })
  @IsIn(TOPICS)
  topic!: Topic;

  @Param({ description: 'The order the message was about, if any' })
  @IsOptional()
  @IsString()
  order_id?: string;

  @Param({ description: 'The refund made while answering, in cents, if any' })
  @IsOptional()
  @IsInt()
  @Min(1)
  refund_cents?: number;
}
