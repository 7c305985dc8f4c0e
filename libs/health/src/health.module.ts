import { BadRequestException, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { AuthModule } from '@app/auth';
import { checkedJsonText, keepJsonBodyText } from '@app/common';
import { DatabaseModule } from '@app/database';
import { CareCirclesController } from './circles/care-circles.controller.js';
import { CareCirclesService } from './circles/care-circles.service.js';
import { HealthAccessService } from './circles/health-access.service.js';
import { InvitationsController } from './circles/invitations.controller.js';
import { InvitationsService } from './circles/invitations.service.js';
import { CareCircleEntity } from './entities/care-circle.entity.js';
import { CircleInvitationEntity } from './entities/circle-invitation.entity.js';
import { CircleMemberEntity } from './entities/circle-member.entity.js';
import { ObservationEntity } from './entities/observation.entity.js';
import { FhirController } from './fhir/fhir.controller.js';
import { ObservationsService } from './fhir/observations.service.js';
import { HealthUserData } from './health-user-data.js';
import { CreateHealthTables1796094249000 } from './migrations/1796094249000-create-health-tables.js';
import { VoidInvitationsOfErasedSenders1796420995000 } from './migrations/1796420995000-void-invitations-of-erased-senders.js';
import { FamilyHealthReader } from './family-health.reader.js';

const FHIR_JSON = 'application/fhir+json';

/** Care circles, FHIR Observations and who may read whose: the tables, the REST API and the services tools use. */
@Module({
  imports: [
    DatabaseModule.forFeature({
      entities: [CareCircleEntity, CircleMemberEntity, CircleInvitationEntity, ObservationEntity],
      migrations: [CreateHealthTables1796094249000, VoidInvitationsOfErasedSenders1796420995000],
    }),
    AuthModule,
  ],
  controllers: [CareCirclesController, InvitationsController, FhirController],
  providers: [CareCirclesService, InvitationsService, HealthAccessService, ObservationsService, FamilyHealthReader, HealthUserData],
  exports: [HealthAccessService, FamilyHealthReader],
})
export class HealthModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  /**
   * FHIR clients send `application/fhir+json`; it is JSON, held to the rules of every JSON body
   * (UTF-8, nesting: a FHIR body nested 100,000 deep overflowed the stack, 500), its text kept as
   * theirs is (`jsonBodyText`: the digits of its numbers), and parsed by Fastify's parser, which
   * refuses `__proto__` and `constructor` keys.
   */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify || fastify.hasContentTypeParser(FHIR_JSON)) return;
    const parse = fastify.getDefaultJsonParser('error', 'error');
    fastify.addContentTypeParser(FHIR_JSON, { parseAs: 'buffer' }, (request, bytes, done) => {
      const checked = checkedJsonText(bytes as Buffer);
      if ('refused' in checked) return done(new BadRequestException(checked.message), undefined);
      keepJsonBodyText(request, checked.text);
      parse(request, checked.text, done);
    });
  }
}
