import { ApiProperty, ApiSchema } from '../../../common/api-docs.js';
import { CRITERION_VERDICTS, type CriterionVerdict } from '../../../criteria/criteria.js';
import type { CriterionJudgementView, RunCriterionView } from '../run-resource.js';

@ApiSchema({ name: 'CriterionJudgement' })
export class CriterionJudgementDto implements CriterionJudgementView {
  @ApiProperty({ enum: CRITERION_VERDICTS }) verdict: CriterionVerdict;
  @ApiProperty({ description: 'why the person judged so' }) reason: string;
  @ApiProperty({ description: 'the judge\'s name claim, or `dashboard`' }) by: string;
  @ApiProperty({ format: 'date-time' }) at: string;
}

@ApiSchema({ name: 'RunCriterion' })
export class RunCriterionDto implements RunCriterionView {
  @ApiProperty({ example: 'c1', description: '`c1`, `c2`, … in the ticket\'s order' }) id: string;
  @ApiProperty({ description: 'the criterion as the ticket states it (one line, at most 500 characters)' }) text: string;
  @ApiProperty({ enum: CRITERION_VERDICTS, nullable: true, type: String, description: 'the agent\'s verdict (`report_criterion`); null when it reported none' }) verdict: CriterionVerdict | null;
  @ApiProperty({ type: String, nullable: true, description: 'the agent\'s evidence for its verdict' }) evidence: string | null;
  @ApiProperty({ type: CriterionJudgementDto, nullable: true, description: 'a person\'s judgement; it changes no run state' }) judgement: CriterionJudgementDto | null;
}
