import { Module } from '@nestjs/common';
import { optionsFromConfig } from '@app/common';
import { AUTH_CONFIG_SECTION, AUTH_OPTIONS } from './auth.options.js';

/** `AUTH_OPTIONS`, read from the app's configuration, for every module of the lib that needs them. */
@Module({
  providers: [optionsFromConfig(AUTH_OPTIONS, AUTH_CONFIG_SECTION)],
  exports: [AUTH_OPTIONS],
})
export class AuthOptionsModule {}
