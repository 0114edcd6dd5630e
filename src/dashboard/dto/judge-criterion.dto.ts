import { IsIn, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { CRITERION_VERDICTS, type CriterionVerdict, MAX_REASON_CHARS } from '../../criteria/criteria.js';

/** `:id` and `:criterion` of the judge route. */
export class CriterionParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'id must be a run id (a UUID)' })
  id!: string;

  @ApiProperty({ example: 'c2', description: 'the criterion\'s id in the run (`c1`, `c2`, …)' })
  @Matches(/^c[1-9][0-9]{0,3}$/, { message: 'criterion must be a criterion id (c1, c2, …)' })
  criterion!: string;
}

/** The body of `POST /api/runs/:id/criteria/:criterion/judge`. */
@ApiSchema({ name: 'JudgeCriterion' })
export class JudgeCriterionBody {
  @ApiProperty({ enum: CRITERION_VERDICTS, description: 'the person\'s verdict' })
  @IsIn(CRITERION_VERDICTS as CriterionVerdict[], { message: `verdict must be one of ${CRITERION_VERDICTS.join(', ')}` })
  verdict!: CriterionVerdict;

  @ApiProperty({ description: 'why; required, not blank', maxLength: MAX_REASON_CHARS, example: 'The rounding test covers it; the agent missed it.' })
  @IsString({ message: 'reason is required: say why' })
  @Matches(/\S/, { message: 'reason is required: say why' })
  @MaxLength(MAX_REASON_CHARS, { message: `reason must be at most ${MAX_REASON_CHARS} characters` })
  reason!: string;
}
