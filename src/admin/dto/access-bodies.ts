import { ArrayMaxSize, IsArray, IsString, Length } from 'class-validator';
import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { AccessName } from './access-params.js';

const MAX_ITEMS = 100;

/** `PUT /api/access/people/:claim/:value` and `PUT /api/access/groups/:value`: the full set of roles (empty removes them). */
@ApiSchema({ name: 'AccessRolesBody' })
export class RolesBody {
  @ApiProperty({ type: [String], example: ['operator'], description: 'the roles to hold from now on (replaces the previous set); names fold case' })
  @IsArray({ message: 'roles must be an array of role names' }) @ArrayMaxSize(MAX_ITEMS, { message: `roles may name at most ${MAX_ITEMS} roles` })
  @IsString({ each: true, message: 'each role must be a string' }) @Length(1, 200, { each: true, message: 'each role must be 1 to 200 characters' })
  roles!: string[];
}

/** `PUT /api/access/roles/:name`. */
@ApiSchema({ name: 'AccessPermissionsBody' })
export class PermissionsBody {
  @ApiProperty({ type: [String], example: ['runs.read', 'runs.control'], description: 'permission names from the catalog, compared exactly' })
  @IsArray({ message: 'permissions must be an array of permission names' }) @ArrayMaxSize(MAX_ITEMS, { message: `permissions may name at most ${MAX_ITEMS} permissions` })
  @IsString({ each: true, message: 'each permission must be a string' }) @Length(1, 200, { each: true, message: 'each permission must be 1 to 200 characters' })
  permissions!: string[];
}

/** `PUT /api/access/claims`: the claim names to save; a field left out keeps its value. */
@ApiSchema({ name: 'AccessClaimNamesBody' })
export class ClaimNamesBody {
  @AccessName('role_claim', 'the claim holding role names', true) role_claim?: string;
  @AccessName('group_claim', 'the claim holding group values', true) group_claim?: string;
  @AccessName('name_claim', 'the claim naming a caller (grants, attribution)', true) name_claim?: string;
}
