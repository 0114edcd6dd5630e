import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '../../common/api-docs.js';

/** A message is a conversation turn, not a document. */
export const MESSAGE_MAX_CHARS = 20_000;

/** `POST /api/dialog`. */
@ApiSchema({ name: 'DialogMessageRequest' })
export class DialogMessageBody {
  @ApiProperty({ description: 'the configured project the conversation is about', example: 'shop' })
  @IsString({ message: 'project must be a string' })
  @Matches(/\S/, { message: 'project must not be empty' })
  @MaxLength(200, { message: 'project must be at most 200 characters' })
  project!: string;

  @ApiProperty({ description: 'the person\'s message; not blank', maxLength: MESSAGE_MAX_CHARS })
  @IsString({ message: 'message must be a string' })
  @Matches(/\S/, { message: 'message must not be empty' })
  @MaxLength(MESSAGE_MAX_CHARS, { message: `message must be at most ${MESSAGE_MAX_CHARS} characters` })
  message!: string;

  @ApiPropertyOptional({ description: 'continue this conversation (yours); absent: start a new one', format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'conversationId must be a UUID' })
  conversationId?: string;
}

/** `POST /api/dialog/:id/file`. */
@ApiSchema({ name: 'DialogFileRequest' })
export class DialogFileBody {
  @ApiProperty({ description: 'indices of the conversation\'s drafts to file (0 is its first draft)', type: [Number], example: [0, 1] })
  @IsArray({ message: 'tickets must be a list of draft indices' })
  @ArrayMinSize(1, { message: 'tickets must name at least one draft' })
  @ArrayMaxSize(50, { message: 'tickets may name at most 50 drafts' })
  @IsInt({ each: true, message: 'tickets must be a list of draft indices (integers)' })
  @Min(0, { each: true, message: 'a draft index is at least 0' })
  @Max(10_000, { each: true, message: 'a draft index is at most 10000' })
  tickets!: number[];

  @ApiPropertyOptional({ description: 'also put the new tickets into the project\'s trigger status or label (needs runs.control)', default: false })
  @IsOptional()
  @IsBoolean({ message: 'start must be true or false' })
  start?: boolean;
}

export class DialogIdParams {
  @IsUUID('all', { message: 'id must be a UUID' })
  id!: string;
}
