import { AdminRoute } from '../../auth/access-rules.js';
import { ALL_PERMISSIONS } from '../../auth/permission.js';
import { RoleSourceKind } from '../../auth/role-resolution.js';
import { ApiProperty, ApiSchema } from '../../common/api-docs.js';
import { FindingDto } from '../../findings/dto/finding.dto.js';

/** The answers of the Access surface's routes, so the OpenAPI document describes them field by field. */

@ApiSchema({ name: 'AccessClaimNames' })
export class ClaimNamesDto {
  @ApiProperty({ example: 'roles' }) role_claim: string;
  @ApiProperty({ example: 'groups' }) group_claim: string;
  @ApiProperty({ example: 'sub' }) name_claim: string;
}

@ApiSchema({ name: 'AccessSavedClaimNames', description: 'null: the bootstrap file\'s value is in force' })
export class SavedClaimNamesDto {
  @ApiProperty({ type: String, nullable: true }) role_claim: string | null;
  @ApiProperty({ type: String, nullable: true }) group_claim: string | null;
  @ApiProperty({ type: String, nullable: true }) name_claim: string | null;
}

@ApiSchema({ name: 'AccessCounts' })
export class AccessCountsDto {
  @ApiProperty({ type: 'integer' }) people: number;
  @ApiProperty({ type: 'integer' }) signedIn: number;
  @ApiProperty({ type: 'integer' }) notSignedInYet: number;
  @ApiProperty({ type: 'integer' }) groups: number;
  @ApiProperty({ type: 'integer' }) mappedGroups: number;
  @ApiProperty({ type: 'integer' }) personGrants: number;
  @ApiProperty({ type: 'integer' }) customRoles: number;
}

@ApiSchema({ name: 'AccessOverview' })
export class AccessOverviewDto {
  @ApiProperty({ type: ClaimNamesDto, description: 'the claim names in force' }) claimNames: ClaimNamesDto;
  @ApiProperty({ type: SavedClaimNamesDto }) savedClaimNames: SavedClaimNamesDto;
  @ApiProperty({ type: AccessCountsDto }) counts: AccessCountsDto;
  @ApiProperty({ enum: Object.values(AdminRoute), isArray: true, description: 'the routes to admin that exist now (empty: none)' }) adminRoutes: AdminRoute[];
  @ApiProperty({ type: 'integer' }) observationWindowDays: number;
  @ApiProperty({ type: [FindingDto] }) findings: FindingDto[];
}

@ApiSchema({ name: 'AccessRoleSource' })
export class RoleSourceDto {
  @ApiProperty() role: string;
  @ApiProperty({ enum: Object.values(RoleSourceKind) }) via: RoleSourceKind;
  @ApiProperty({ description: 'the claim value, group, grant or bootstrap-grant entry it came through' }) value: string;
}

@ApiSchema({ name: 'AccessPerson' })
export class AccessPersonDto {
  @ApiProperty({ description: 'the claim the person is known by (the name_claim when seen)' }) claim: string;
  @ApiProperty() value: string;
  @ApiProperty({ type: String, nullable: true }) subject: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null: not signed in yet' }) lastSeen: string | null;
  @ApiProperty() signedIn: boolean;
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiProperty({ type: [RoleSourceDto] }) roleSources: RoleSourceDto[];
}

@ApiSchema({ name: 'AccessPeoplePage' })
export class AccessPeoplePageDto {
  @ApiProperty({ type: [AccessPersonDto] }) people: AccessPersonDto[];
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ type: 'integer' }) offset: number;
}

@ApiSchema({ name: 'AccessGroup' })
export class AccessGroupDto {
  @ApiProperty({ description: 'the group value (one leading slash removed)' }) value: string;
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiProperty({ description: 'a mapping is saved for it' }) mapped: boolean;
  @ApiProperty({ type: 'integer', description: 'observed callers who arrived with it' }) seenWith: number;
}

@ApiSchema({ name: 'AccessGroups' })
export class AccessGroupsDto {
  @ApiProperty({ type: [AccessGroupDto] }) groups: AccessGroupDto[];
}

@ApiSchema({ name: 'AccessRole' })
export class AccessRoleDto {
  @ApiProperty() name: string;
  @ApiProperty({ enum: ALL_PERMISSIONS, isArray: true }) permissions: string[];
  @ApiProperty({ type: [String], description: 'configured permissions no longer in the catalog (kept working, reported as findings)' }) legacyPermissions: string[];
  @ApiProperty({ type: 'integer' }) holders: number;
}

@ApiSchema({ name: 'AccessRoles' })
export class AccessRolesDto {
  @ApiProperty({ enum: ALL_PERMISSIONS, isArray: true, description: 'the permission catalog (the matrix columns)' }) permissions: string[];
  @ApiProperty({ type: [AccessRoleDto] }) builtIn: AccessRoleDto[];
  @ApiProperty({ type: [AccessRoleDto] }) custom: AccessRoleDto[];
  @ApiProperty({ type: [FindingDto] }) findings: FindingDto[];
}

@ApiSchema({ name: 'AccessNote' })
export class AccessNoteDto {
  @ApiProperty() reason: string;
}

@ApiSchema({ name: 'AccessGrant' })
export class AccessGrantDto {
  @ApiProperty() claim: string;
  @ApiProperty() value: string;
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiProperty({ type: [AccessNoteDto], description: 'a note when the grant\'s claim is not the name_claim (it grants nothing until it is)' }) findings: AccessNoteDto[];
}

@ApiSchema({ name: 'AccessGroupMapping' })
export class AccessGroupMappingDto {
  @ApiProperty() value: string;
  @ApiProperty({ type: [String] }) roles: string[];
}

@ApiSchema({ name: 'AccessCustomRole' })
export class AccessCustomRoleDto {
  @ApiProperty() name: string;
  @ApiProperty({ type: [String] }) permissions: string[];
}

@ApiSchema({ name: 'AccessClaimsSaved' })
export class AccessClaimsSavedDto {
  @ApiProperty({ type: ClaimNamesDto }) claimNames: ClaimNamesDto;
  @ApiProperty({ type: [FindingDto] }) findings: FindingDto[];
}
