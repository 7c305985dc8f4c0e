import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiBadRequestResponse, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { Bundle, Observation } from '@medplum/fhirtypes';
import { ApiTag, jsonBodyText, NotFoundError, PublicAddress, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import { DEFAULT_SEARCH_COUNT, ObservationSearchDto } from '../dto/fhir.dto.js';
import { parseDateParams, searchAlternatives } from './fhir-search.js';
import { ObservationsService, type SearchPageUrl } from './observations.service.js';

const OBSERVATION_PATH = '/api/fhir/Observation';

/** A page of the search `request` asks for: its own path and query after `baseUrl`, with `_cursor` set (or, for the first page, left out). */
const searchPageUrl =
  (request: FastifyRequest, baseUrl: string): SearchPageUrl =>
  (cursor) => {
    // Only the target's path and query are used; a PUBLIC_BASE_URL may add a path of its own.
    const target = new URL(request.url, 'http://target.invalid');
    if (cursor) target.searchParams.set('_cursor', cursor);
    else target.searchParams.delete('_cursor');
    return `${baseUrl}${target.pathname}${target.search}`;
  };

const FHIR_OBJECT = { type: 'object', additionalProperties: true } as const;

/**
 * The caller's own FHIR R4 Observations. Bodies are validated against the FHIR definitions (not DTOs), and every
 * problem is named by path: `Observation.valueQuantity.value`, `Bundle.entry[2].resource.status`.
 */
@ApiTag('fhir')
@Controller('api/fhir')
@Authenticated()
export class FhirController {
  constructor(
    private readonly observations: ObservationsService,
    private readonly publicAddress: PublicAddress,
  ) {}

  @Post('Observation')
  @ApiOperation({ summary: 'Store an Observation', operationId: 'fhir_createObservation' })
  @ApiBody({ description: 'A FHIR R4 Observation (application/json or application/fhir+json)', schema: FHIR_OBJECT })
  @ApiCreatedResponse({ description: 'The stored Observation, with its server-assigned id; `Location` is its URL (version 1)', schema: FHIR_OBJECT })
  @ApiBadRequestResponse({ description: 'Not a valid Observation; `fields` maps each path to its problem' })
  async create(
    @CurrentCaller() caller: UserInfo,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Observation> {
    const created = await this.observations.createOne(caller.userId, body, jsonBodyText(request));
    void reply.header('location', `${this.publicAddress.baseUrlFor(request)}${OBSERVATION_PATH}/${created.id}/_history/1`);
    return created;
  }

  @Get('Observation/:id')
  @ApiOperation({ summary: 'Read one of your Observations', operationId: 'fhir_readObservation' })
  @ApiOkResponse({ description: 'One of your Observations, as stored', schema: FHIR_OBJECT })
  @ApiNotFoundResponse({ description: 'No such Observation of yours' })
  read(@CurrentCaller() caller: UserInfo, @Param('id') id: string): Promise<Observation> {
    return this.observations.readOne(caller.userId, id);
  }

  @Get('Observation/:id/_history/:versionId')
  @ApiOperation({ summary: 'Read a version of one of your Observations', operationId: 'fhir_readObservationVersion' })
  @ApiOkResponse({ description: 'A version of one of your Observations; stored Observations have only version 1', schema: FHIR_OBJECT })
  @ApiNotFoundResponse({ description: 'No such Observation of yours, or no such version' })
  async readVersion(@CurrentCaller() caller: UserInfo, @Param('id') id: string, @Param('versionId') versionId: string): Promise<Observation> {
    const observation = await this.observations.readOne(caller.userId, id);
    if (versionId !== observation.meta?.versionId) throw new NotFoundError(`Observation ${id} has no version ${versionId}`);
    return observation;
  }

  @Delete('Observation/:id')
  @ApiOperation({ summary: 'Delete one of your Observations', operationId: 'fhir_deleteObservation' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ description: 'No such Observation of yours' })
  async remove(@CurrentCaller() caller: UserInfo, @Param('id') id: string): Promise<void> {
    await this.observations.deleteOne(caller.userId, id);
  }

  @Post()
  @ApiOperation({ summary: 'Store the Observations of a batch, transaction or collection Bundle', operationId: 'fhir_ingestBundle' })
  @ApiBody({ description: 'A Bundle of type batch, transaction or collection whose entries create Observations', schema: FHIR_OBJECT })
  @ApiCreatedResponse({ description: 'A batch-response (per entry) or transaction-response Bundle', schema: FHIR_OBJECT })
  @ApiBadRequestResponse({ description: 'A transaction or collection with any bad entry stores nothing; `fields` names entry index and path' })
  ingest(@CurrentCaller() caller: UserInfo, @Body() body: unknown, @Req() request: FastifyRequest): Promise<Bundle> {
    return this.observations.ingestBundle(caller.userId, body, jsonBodyText(request));
  }

  @Get('Observation')
  @ApiOperation({ summary: 'Search your Observations by code and date, newest first', operationId: 'fhir_searchObservations' })
  @ApiOkResponse({
    description:
      "A searchset Bundle of the caller's own Observations, newest first by clinical time; `total` counts every match, a `next` link fetches the following page",
    schema: FHIR_OBJECT,
  })
  search(@CurrentCaller() caller: UserInfo, @Query() query: ObservationSearchDto, @Req() request: FastifyRequest): Promise<Bundle<Observation>> {
    return this.observations.searchset(
      caller.userId,
      {
        count: query._count ?? DEFAULT_SEARCH_COUNT,
        ...(query.code ? { codes: searchAlternatives('code', query.code) } : {}),
        dateBounds: parseDateParams(query.date ?? []),
        ...(query._cursor ? { cursor: query._cursor } : {}),
      },
      searchPageUrl(request, this.publicAddress.baseUrlFor(request)),
    );
  }
}
