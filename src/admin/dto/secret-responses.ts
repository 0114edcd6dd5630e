import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import type { SecretsKey } from '../../secrets/secrets-key.js';
import type { StoredSecretRow } from '../../secrets/secrets-store.service.js';

/** The answers of the secrets routes. None carries a value. */

/** Every state of SERVICE_SECRETS_KEY: a Record so a new state fails to compile until it is listed here. */
const KEY_STATES = Object.keys({ ok: true, missing: true, invalid: true } satisfies Record<SecretsKey['state'], true>);
const USED_BY = 'the configuration keys that reference it as `${NAME}` (empty when the file\'s `secrets:` block defines the name)';

@ApiSchema({ name: 'StoredSecret' })
export class StoredSecretDto implements StoredSecretRow {
  @ApiProperty({ example: 'REPO_TOKEN' }) name: string;
  @ApiProperty({ format: 'date-time', description: 'when it was last saved' }) updatedAt: string;
  @ApiProperty({ description: 'who last saved it (the name_claim principal, or dashboard)' }) updatedBy: string;
  @ApiProperty({ description: 'the current SERVICE_SECRETS_KEY decrypts it' }) readable: boolean;
  @ApiProperty({ type: [String], description: USED_BY }) usedBy: string[];
}

@ApiSchema({ name: 'StoredSecrets' })
export class StoredSecretsDto {
  @ApiProperty({ type: [StoredSecretDto] }) secrets: StoredSecretDto[];
  @ApiProperty({ enum: KEY_STATES, description: 'SERVICE_SECRETS_KEY: set and valid, not set, or not 32 bytes of base64' }) key: SecretsKey['state'];
}

@ApiSchema({ name: 'SecretSaved' })
export class SecretSavedDto {
  @ApiProperty({ example: 'REPO_TOKEN' }) name: string;
  @ApiProperty({ type: [String], description: USED_BY }) usedBy: string[];
  @ApiProperty({ type: 'integer', description: 'the change record of the save' }) change: number;
}
