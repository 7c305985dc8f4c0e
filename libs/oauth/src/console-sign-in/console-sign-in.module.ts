import { Module, type DynamicModule } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { optionsFromConfig } from '@app/common';
import { IdentityProvider } from '../identity-provider/identity-provider.js';
import { OAUTH_CONFIG_SECTION, OAUTH_OPTIONS } from '../oauth.options.js';
import { ConsoleSignInController } from './console-sign-in.controller.js';

/**
 * The web console's sign-in at the company's OpenID Connect provider (`OIDC_ISSUER`), in either
 * OAuth mode: the app imports it whenever a provider is configured. Its sessions are the auth
 * lib's (`ConsoleSessions`).
 */
@Module({})
export class ConsoleSignInModule {
  static register(): DynamicModule {
    return {
      module: ConsoleSignInModule,
      imports: [AuthModule],
      controllers: [ConsoleSignInController],
      providers: [optionsFromConfig(OAUTH_OPTIONS, OAUTH_CONFIG_SECTION), IdentityProvider],
    };
  }
}
