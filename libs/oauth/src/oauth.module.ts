import { Module, type DynamicModule } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { optionsFromConfig } from '@app/common';
import { DatabaseModule } from '@app/database';
import { AdminOAuthClientsController } from './admin/admin-oauth-clients.controller.js';
import { KnownClients } from './admin/known-clients.service.js';
import { AuthorizationRequestEntity } from './authorization/authorization-request.entity.js';
import { AuthorizationService } from './authorization/authorization.service.js';
import { ClientsService } from './clients/clients.service.js';
import { IdentityAssertionGrant } from './grants/identity-assertion-grant.js';
import { UsedAssertionEntity } from './grants/used-assertion.entity.js';
import { RegisteredClientEntity } from './clients/registered-client.entity.js';
import { SignInController } from './http/sign-in.controller.js';
import { TokenController } from './http/token.controller.js';
import { IdentityProvider } from './identity-provider/identity-provider.js';
import { CreateOauthServerTables1796540000000 } from './migrations/1796540000000-create-oauth-server-tables.js';
import { StoreProviderGrants1797410100000 } from './migrations/1797410100000-store-provider-grants.js';
import { OAuthHousekeeping } from './oauth-housekeeping.js';
import { OAUTH_CONFIG_SECTION, OAUTH_OPTIONS } from './oauth.options.js';

/**
 * The built-in OAuth 2.1 authorization server (`OAUTH_MODE=builtin`): MCP clients (Claude,
 * ChatGPT, Cursor) register (DCR) or name their metadata document (CIMD), send the user to
 * `/authorize`, who signs in at the company's OpenID Connect provider and consents; `/token` gives
 * them the tokens of a connection (`ConnectionsService`, in the auth lib, whose access tokens `/mcp`
 * checks like any other credential). The form bodies of `/token`, `/revoke` and the consent page
 * need `registerOAuthFormBodies` on the app's Fastify instance. Options: the configuration's
 * `oauth` section.
 */
@Module({})
export class OAuthModule {
  /**
   * For the app to import in builtin mode only. A method rather than a static module because
   * `TypeOrmModule.forFeature` registers entities when it is called: in a static module's
   * metadata it would run as soon as the app's file is loaded, and an app in external mode would
   * know entities whose tables no migration of its creates.
   */
  static register(): DynamicModule {
    return {
      module: OAuthModule,
      imports: [
        DatabaseModule.forFeature({
          entities: [RegisteredClientEntity, AuthorizationRequestEntity, UsedAssertionEntity],
          migrations: [CreateOauthServerTables1796540000000, StoreProviderGrants1797410100000],
        }),
        AuthModule,
      ],
      controllers: [TokenController, SignInController, AdminOAuthClientsController],
      providers: [
        optionsFromConfig(OAUTH_OPTIONS, OAUTH_CONFIG_SECTION),
        ClientsService,
        IdentityProvider,
        AuthorizationService,
        IdentityAssertionGrant,
        OAuthHousekeeping,
        KnownClients,
      ],
    };
  }
}
