import { ApiProperty, ApiSchema } from '../../../common/api-docs.js';
import { SandboxState } from '../../../database/entities/run-sandbox.entity.js';
import type { RunSandboxView } from '../run-resource.js';

@ApiSchema({ name: 'RunSandbox' })
export class RunSandboxDto implements RunSandboxView {
  @ApiProperty({ example: 'web' }) repo: string;
  @ApiProperty({ example: 'web/', description: 'the repository\'s folder in the run\'s tree' }) pathPrefix: string;
  @ApiProperty({ enum: Object.values(SandboxState) }) state: SandboxState;
}
