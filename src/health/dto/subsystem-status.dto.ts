import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { BackgroundSubsystem, type SubsystemState, type SubsystemStatus } from '../../store/subsystem.js';

@ApiSchema({ name: 'SubsystemStatus' })
export class SubsystemStatusDto implements SubsystemStatus {
  @ApiProperty({ enum: Object.values(BackgroundSubsystem) }) name: BackgroundSubsystem;
  @ApiProperty({ enum: ['up', 'degraded', 'down', 'disabled'] }) state: SubsystemState;
  @ApiProperty() reason: string;
  @ApiProperty({ format: 'date-time' }) last_changed_utc: string;
}
