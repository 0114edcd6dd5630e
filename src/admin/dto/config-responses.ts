import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { ANY_JSON_VALUE } from '../../common/dto/any-json-value.js';
import { type ConfigLeaf, type ConfigReference, type ConfigSource, SOURCE_PRECEDENCE } from '../../settings/effective-config.js';

/** The answer of GET /api/config, and the key-by-key view the settings routes share with it. */

/** Every origin of a `${NAME}`: a Record so a new one fails to compile until it is listed here. */
const REFERENCE_ORIGINS = Object.keys({
  'secrets-block': true, 'stored-secret': true, environment: true, unresolved: true,
} satisfies Record<ConfigReference['from'], true>);

@ApiSchema({ name: 'ConfigReference' })
export class ConfigReferenceDto implements ConfigReference {
  @ApiProperty({ example: 'REPO_TOKEN' }) name: string;
  @ApiProperty({ enum: REFERENCE_ORIGINS, description: 'where it resolves: the file\'s `secrets:` block, a stored secret, the environment, or nowhere' })
  from: ConfigReference['from'];
}

@ApiSchema({ name: 'ConfigKey' })
export class ConfigLeafDto implements ConfigLeaf {
  @ApiProperty({ example: 'queue.max_parallel_runs' }) key: string;
  @ApiProperty({ ...ANY_JSON_VALUE, description: 'the value in force, masked: `${NAME}` references as written, secrets as `***`' }) value: unknown;
  @ApiProperty({ enum: SOURCE_PRECEDENCE }) source: ConfigSource;
  @ApiProperty({ required: false, description: 'the environment variable that gives it (source environment)' }) variable?: string;
  @ApiProperty({ type: [ConfigReferenceDto], required: false, description: 'the `${NAME}` references in the value' }) references?: ConfigReference[];
  @ApiProperty({ type: Boolean, enum: [true], required: false, description: 'a bootstrap setting: read once at start' }) bootstrap?: true;
  @ApiProperty({ type: Boolean, enum: [true], required: false, description: 'the configuration now says `configured`; the value in force changes only with a restart' })
  restartDue?: true;
  @ApiProperty({ ...ANY_JSON_VALUE, required: false, description: 'what the configuration now says (with `restartDue`), masked' }) configured?: unknown;
}

@ApiSchema({ name: 'ConfigFile' })
export class ConfigFileDto {
  @ApiProperty({ example: '/etc/pipeline-service/service.yml' }) path: string;
  @ApiProperty({ description: 'false: absent, the built-in defaults are in force' }) present: boolean;
}

@ApiSchema({ name: 'ConfigSecretNames' })
export class ConfigSecretNamesDto {
  @ApiProperty({ type: [String], description: 'the names in the file\'s `secrets:` block' }) file: string[];
  @ApiProperty({ type: [String], description: 'the stored secrets\' names' }) stored: string[];
}

@ApiSchema({ name: 'ConfigOverview' })
export class ConfigOverviewDto {
  @ApiProperty({ type: ConfigFileDto }) file: ConfigFileDto;
  @ApiProperty({ type: String, nullable: true, description: 'the config_revision this replica has applied (null before the database answered)', example: '7' })
  revision: string | null;
  @ApiProperty({ type: [ConfigLeafDto], description: 'the bootstrap settings (auth.authority, auth.audience, auth.enforce) as in `keys`' }) bootstrap: ConfigLeafDto[];
  @ApiProperty({ type: ConfigSecretNamesDto, description: 'names only, never values' }) secrets: ConfigSecretNamesDto;
  @ApiProperty({ type: [ConfigLeafDto], description: 'every key in force, sorted' }) keys: ConfigLeafDto[];
}
