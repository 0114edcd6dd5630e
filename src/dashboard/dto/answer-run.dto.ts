import { IsString, Matches, MaxLength } from 'class-validator';
import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { ANSWER_MAX_CHARS } from '../../conversations/hand-back/hand-back-answers.service.js';

/** The body of `POST /api/runs/:id/answer`. */
@ApiSchema({ name: 'AnswerRun' })
export class AnswerRunBody {
  @ApiProperty({ description: 'the answer to the parked run\'s question; not blank', maxLength: ANSWER_MAX_CHARS, example: 'Use the EU rounding rule: round once, per cart.' })
  @IsString({ message: 'answer must be a string' })
  @Matches(/\S/, { message: 'answer must not be empty' })
  @MaxLength(ANSWER_MAX_CHARS, { message: `answer must be at most ${ANSWER_MAX_CHARS} characters` })
  answer!: string;
}
