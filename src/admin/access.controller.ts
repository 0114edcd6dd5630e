import { isChatPrincipal } from '../access/chat-principals.js';
import { BadRequestException, Body, Controller, Delete, Get, HttpCode, Param, Put, Query, UseFilters, UsePipes } from '@nestjs/common';
import type { AccessChange } from '../access/access-change.js';
import { AccessReader } from '../access/access-reader.service.js';
import { AccessWriter } from '../access/access-writer.service.js';
import { nameClaimWarning } from '../auth/access-rules.js';
import { Permission } from '../auth/permission.js';
import { attributionOf } from '../auth/principal.js';
import { CurrentAuth, type RequestAuth } from '../auth/request-auth.js';
import { RequirePermissions } from '../auth/require-permissions.decorator.js';
import {
  ApiBadRequestResponse, ApiConflictResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags,
  ApiUnprocessableEntityResponse,
} from '../common/api-docs.js';
import { ErrorBodyDto } from '../common/dto/error-body.dto.js';
import { requestValidation } from '../common/request-validation.js';
import { ApiErrorFilter } from '../dashboard/api-error.filter.js';
import { effectiveClaimNames } from '../access/access-snapshot.js';
import { AccessStoreService } from '../access/access-store.service.js';
import {
  AccessClaimsSavedDto, AccessCustomRoleDto, AccessGrantDto, AccessGroupMappingDto, AccessGroupsDto, AccessOverviewDto, AccessPeoplePageDto, AccessRolesDto,
} from './dto/access-responses.js';
import { ClaimNamesBody, PermissionsBody, RolesBody } from './dto/access-bodies.js';
import { GroupParams, PeopleQuery, PersonParams, RoleParams } from './dto/access-params.js';
import { refusalOf } from './refusal.js';

const REFUSED_422 = 'refused at save: `{error, code, …}` (code builtin_name, unknown_permission, unknown_role, invalid_name, invalid_group, builtin_role)';
const REFUSED_409 = 'refused: `{error, code, …}` (code has_holders with `holders`, or no_admin_route with the four `routes`)';

/**
 * The Access surface (spec "The Access surface has four panes …"): People, Groups, Roles and Claim
 * names over one document. Reads need access.read, writes access.write (rule 12: only admin holds
 * them). Every write goes through AccessWriter, attributed to the caller's name claim or `dashboard`.
 */
@ApiTags('access')
@ApiBadRequestResponse({ type: ErrorBodyDto, description: 'a malformed parameter or body, named in `error`' })
@ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'the database is away: try again' })
@Controller('api/access')
@UsePipes(requestValidation)
@UseFilters(ApiErrorFilter)
export class AccessController {
  constructor(
    private readonly reader: AccessReader,
    private readonly writer: AccessWriter,
    private readonly store: AccessStoreService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Access overview', description: 'Claim names in force (and which were saved here), counts per pane, the routes to admin, and standing findings.' })
  @ApiOkResponse({ type: AccessOverviewDto })
  @RequirePermissions(Permission.AccessRead)
  overview() {
    return this.reader.overview();
  }

  @Get('people')
  @ApiOperation({ summary: 'People', description: 'Everyone seen in the observation window plus everyone added by hand, with roles and where each comes from (role-claim, group, person-grant, admin-grant). `lastSeen` null: not signed in yet.' })
  @ApiOkResponse({ type: AccessPeoplePageDto })
  @RequirePermissions(Permission.AccessRead)
  people(@Query() query: PeopleQuery) {
    return this.reader.people(query.q, query.limit, query.offset);
  }

  @Get('groups')
  @ApiOperation({ summary: 'Groups', description: 'Every group value that arrived or is mapped, with the roles it grants.' })
  @ApiOkResponse({ type: AccessGroupsDto })
  @RequirePermissions(Permission.AccessRead)
  groups() {
    return this.reader.groups();
  }

  @Get('roles')
  @ApiOperation({ summary: 'Roles', description: 'The three built-in roles with holder counts and their permissions over the catalog (the matrix), then the custom roles.' })
  @ApiOkResponse({ type: AccessRolesDto })
  @RequirePermissions(Permission.AccessRead)
  roles() {
    return this.reader.roles();
  }

  @Put('people/:claim/:value')
  @ApiOperation({ summary: 'Grant roles to a person', description: 'Replaces the person\'s granted roles; adds the person by hand when not seen yet.' })
  @ApiOkResponse({ type: AccessGrantDto })
  @ApiUnprocessableEntityResponse({ type: ErrorBodyDto, description: REFUSED_422 })
  @ApiConflictResponse({ type: ErrorBodyDto, description: REFUSED_409 })
  @RequirePermissions(Permission.AccessWrite)
  async grant(@Param() p: PersonParams, @Body() body: RolesBody, @CurrentAuth() auth: RequestAuth) {
    const after = await this.write({ kind: 'grant-person', claim: p.claim, value: p.value, roles: body.roles }, auth);
    const roles = after.document.personGrants.filter((g) => g.claim === p.claim && g.value === p.value).map((g) => g.role);
    const nameClaim = this.store.claimNames().name_claim;
    const findings = p.claim === nameClaim || isChatPrincipal(p.claim) ? [] : [{ reason: `this grant's claim '${p.claim}' is not the configured name_claim '${nameClaim}': it grants nothing until it is` }];
    return { claim: p.claim, value: p.value, roles, findings };
  }

  @Delete('people/:claim/:value')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a person', description: 'Removes the grant and the record together (the observation, and the by-hand entry).' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: REFUSED_409 })
  @RequirePermissions(Permission.AccessWrite)
  async removePerson(@Param() p: PersonParams, @CurrentAuth() auth: RequestAuth): Promise<void> {
    await this.write({ kind: 'remove-person', claim: p.claim, value: p.value }, auth);
  }

  @Put('groups/:value')
  @ApiOperation({ summary: 'Save a group mapping', description: 'The roles the group grants from now on; an empty list removes the mapping.' })
  @ApiOkResponse({ type: AccessGroupMappingDto })
  @ApiUnprocessableEntityResponse({ type: ErrorBodyDto, description: REFUSED_422 })
  @ApiConflictResponse({ type: ErrorBodyDto, description: REFUSED_409 })
  @RequirePermissions(Permission.AccessWrite)
  async mapGroup(@Param() p: GroupParams, @Body() body: RolesBody, @CurrentAuth() auth: RequestAuth) {
    const value = p.value.startsWith('/') ? p.value.slice(1) : p.value;
    const after = await this.write({ kind: 'map-group', value: p.value, roles: body.roles }, auth);
    return { value, roles: [...(after.document.groupRoles[value] ?? [])] };
  }

  @Put('roles/:name')
  @ApiOperation({ summary: 'Save a custom role', description: 'A name colliding with a built-in role (any case) or a permission outside the catalog (compared exactly) is refused; permissions already on the role are not re-judged.' })
  @ApiOkResponse({ type: AccessCustomRoleDto })
  @ApiUnprocessableEntityResponse({ type: ErrorBodyDto, description: REFUSED_422 })
  @ApiConflictResponse({ type: ErrorBodyDto, description: REFUSED_409 })
  @RequirePermissions(Permission.AccessWrite)
  async saveRole(@Param() p: RoleParams, @Body() body: PermissionsBody, @CurrentAuth() auth: RequestAuth) {
    const after = await this.write({ kind: 'save-role', name: p.name, permissions: body.permissions }, auth);
    const name = p.name.trim().toLowerCase();
    return { name, permissions: [...(after.document.customRoles[name] ?? [])] };
  }

  @Delete('roles/:name')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a custom role', description: 'Refused while a holder can be seen (granted here, through a mapped group, or seen with it in the role claim); the refusal names the holders.' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'no such custom role' })
  @ApiUnprocessableEntityResponse({ type: ErrorBodyDto, description: REFUSED_422 })
  @ApiConflictResponse({ type: ErrorBodyDto, description: REFUSED_409 })
  @RequirePermissions(Permission.AccessWrite)
  async removeRole(@Param() p: RoleParams, @CurrentAuth() auth: RequestAuth): Promise<void> {
    await this.write({ kind: 'remove-role', name: p.name }, auth);
  }

  @Put('claims')
  @ApiOperation({ summary: 'Save claim names', description: 'role_claim, group_claim and name_claim, saved to the database and used from the next request on every replica.' })
  @ApiOkResponse({ type: AccessClaimsSavedDto })
  @ApiConflictResponse({ type: ErrorBodyDto, description: REFUSED_409 })
  @RequirePermissions(Permission.AccessWrite)
  async saveClaims(@Body() body: ClaimNamesBody, @CurrentAuth() auth: RequestAuth) {
    const claims = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined).map(([k, v]) => [k, (v as string).trim()]));
    if (Object.keys(claims).length === 0) throw new BadRequestException({ error: 'name at least one of role_claim, group_claim, name_claim' });
    const after = await this.write({ kind: 'save-claims', claims }, auth);
    const claimNames = effectiveClaimNames(this.store.configuredClaimNames(), after.claimNames);
    return { claimNames, findings: [nameClaimWarning(claimNames)].filter((f) => f !== null) };
  }

  private async write(change: AccessChange, auth: RequestAuth) {
    const result = await this.writer.apply(change, attributionOf(auth.principal), auth.principal);
    if (result.outcome === 'refused') throw refusalOf(result.refusal);
    return result.after;
  }
}
