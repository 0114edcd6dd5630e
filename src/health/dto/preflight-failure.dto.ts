import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { PreflightReport } from '../preflight.js';

type PreflightFailure = PreflightReport['failures'][number];

@ApiSchema({ name: 'PreflightFailure' })
export class PreflightFailureDto implements PreflightFailure {
  @ApiProperty() name: string;
  @ApiProperty() message: string;
  @ApiProperty() fix_hint: string;
}
