import { IsString, Length, ValidateBy } from 'class-validator';
import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { ANY_JSON_VALUE } from '../../common/dto/any-json-value.js';

/** Fastify answers 414 for a path parameter over 100 characters (its maxParamLength). */
const MAX_KEY_LENGTH = 100;
/** A setting is a value of the configuration, not a document store: 64 KiB of JSON at most. */
export const MAX_SETTING_BYTES = 65_536;

/** `:key` of a setting: the dotted key as the bootstrap file nests it; its form is checked by the writer (422 invalid_key). */
export class SettingKeyParams {
  @ApiProperty({ description: 'dotted key, e.g. `queue.max_parallel_runs` or `projects.shop.platform_a_trigger`', minLength: 1, maxLength: MAX_KEY_LENGTH, example: 'queue.max_parallel_runs' })
  @IsString({ message: 'key must be a string' }) @Length(1, MAX_KEY_LENGTH, { message: `key must be 1 to ${MAX_KEY_LENGTH} characters` })
  key!: string;
}

/** Present (null included: it unsets the key over the file), and at most MAX_SETTING_BYTES as JSON. */
const IsSettingValue = () => ValidateBy({
  name: 'isSettingValue',
  validator: {
    validate: (value: unknown) => value !== undefined && Buffer.byteLength(JSON.stringify(value)) <= MAX_SETTING_BYTES,
    defaultMessage: () => `value is required (any JSON value; null unsets the key over the file) and may take at most ${MAX_SETTING_BYTES} bytes as JSON`,
  },
});

/** `PUT /api/config/settings/:key`. */
@ApiSchema({ name: 'SettingValueBody' })
export class SettingValueBody {
  @ApiProperty({
    description: 'the value as the bootstrap file would hold it at the key (a block: the whole mapping); `${NAME}` references stay unresolved. '
      + 'At a field read as a secret only `${NAME}` references are accepted.',
    ...ANY_JSON_VALUE,
    example: 8,
  })
  @IsSettingValue()
  value!: unknown;
}
