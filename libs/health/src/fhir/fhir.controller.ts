import { Body, Controller, Get, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiBadRequestResponse, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Bundle, Observation } from '@medplum/fhirtypes';
import type { UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '@app/auth';
import { DEFAULT_SEARCH_COUNT, ObservationSearchDto } from '../dto/fhir.dto.js';
import { parseDateParams, searchAlternatives } from './fhir-search.js';
import { ObservationsService, type SearchPageUrl } from './observations.service.js';

/** A page of the search `request` asks for: its own URL, with `_cursor` set (or, for the first page, left out). */
const searchPageUrl =
  (request: FastifyRequest): SearchPageUrl =>
  (cursor) => {
    const url = new URL(request.url, `${request.protocol}://${request.host}`);
    if (cursor) url.searchParams.set('_cursor', cursor);
    else url.searchParams.delete('_cursor');
    return url.href;
  };

const FHIR_OBJECT = { type: 'object', additionalProperties: true } as const;

/**
 * The caller's own FHIR R4 Observations. Bodies are validated against the FHIR definitions (not DTOs), and every
 * problem is named by path: `Observation.valueQuantity.value`, `Bundle.entry[2].resource.status`.
 */
@ApiTags('fhir')
@Controller('api/fhir')
@Authenticated()
export class FhirController {
  constructor(private readonly observations: ObservationsService) {}

  @Post('Observation')
  @ApiBody({ description: 'A FHIR R4 Observation (application/json or application/fhir+json)', schema: FHIR_OBJECT })
  @ApiCreatedResponse({ description: 'The stored Observation, with its server-assigned id', schema: FHIR_OBJECT })
  @ApiBadRequestResponse({ description: 'Not a valid Observation; `fields` maps each path to its problem' })
  create(@CurrentCaller() caller: UserInfo, @Body() body: unknown): Promise<Observation> {
    return this.observations.createOne(caller.userId, body);
  }

  @Post()
  @ApiBody({ description: 'A Bundle of type batch, transaction or collection whose entries create Observations', schema: FHIR_OBJECT })
  @ApiCreatedResponse({ description: 'A batch-response (per entry) or transaction-response Bundle', schema: FHIR_OBJECT })
  @ApiBadRequestResponse({ description: 'A transaction or collection with any bad entry stores nothing; `fields` names entry index and path' })
  ingest(@CurrentCaller() caller: UserInfo, @Body() body: unknown): Promise<Bundle> {
    return this.observations.ingestBundle(caller.userId, body);
  }

  @Get('Observation')
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
      searchPageUrl(request),
    );
  }
}
