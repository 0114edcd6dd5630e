import { AskKind } from '../../agent/agent-types.js';
import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { AnswerSource } from '../../conversations/run-conversation.js';

/** The hand-back of a parked run (the agent's `ask`) and what became of it. */
@ApiSchema({ name: 'RunQuestion' })
export class RunQuestionDto {
  @ApiProperty({ enum: Object.values(AskKind), description: '`not-implementable` takes no answer: retry the run instead' }) kind: AskKind;
  @ApiProperty({ description: 'the question as the agent asked it, whole (the run\'s `error` holds one line of it)' }) question: string;
  @ApiProperty({ format: 'date-time' }) askedAt: string;
  @ApiProperty({ type: String, nullable: true, description: 'the answer that resumed the ticket; null while open, or when a retry closed it' }) answer: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'who answered (or retried)' }) answeredBy: string | null;
  @ApiProperty({ enum: Object.values(AnswerSource), nullable: true }) answerSource: AnswerSource | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null while the question is open' }) answeredAt: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'the run the answer (or the retry) started' }) resumedRunId: string | null;
}

/** `GET /api/runs/:id/question`: null for a run that asked nothing. */
@ApiSchema({ name: 'RunQuestionEnvelope' })
export class RunQuestionEnvelopeDto {
  @ApiProperty({ type: RunQuestionDto, nullable: true }) question: RunQuestionDto | null;
}
