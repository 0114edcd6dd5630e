import { IsOptional, IsString, Length, Matches } from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '../../common/api-docs.js';
import { PageQuery } from '../../dashboard/dto/page.query.js';

const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;

/** A path or body value naming a claim, a claim value, a group or a role: 1–200 characters, no control characters. */
export const AccessName = (name: string, description: string, optional = false): PropertyDecorator => (target, key) => {
  (optional ? ApiPropertyOptional : ApiProperty)({ description, minLength: 1, maxLength: 200 })(target, key);
  if (optional) IsOptional()(target, key);
  IsString({ message: `${name} must be a string` })(target, key);
  Length(1, 200, { message: `${name} must be 1 to 200 characters` })(target, key);
  Matches(NO_CONTROL, { message: `${name} must not contain control characters` })(target, key);
  Matches(/\S/, { message: `${name} must not be blank` })(target, key);
};

/** `:claim/:value` of a person: a grant names the person by `{claim, value}` (compared ordinally). */
export class PersonParams {
  @AccessName('claim', 'the claim that names the person; grants resolve only while it is the configured name_claim') claim!: string;
  @AccessName('value', 'the claim value, compared exactly (case-sensitive)') value!: string;
}

export class GroupParams {
  @AccessName('value', 'the group value as the directory sends it; one leading slash is ignored') value!: string;
}

export class RoleParams {
  @AccessName('name', 'the role name; names fold case') name!: string;
}

export class PeopleQuery extends PageQuery {
  @AccessName('q', 'matches the claim value, the subject or a role, case-insensitively', true) q?: string;
}
