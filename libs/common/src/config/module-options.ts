import type { FactoryProvider, InjectionToken } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';

/**
 * Provides a lib's options `token` from its section of the app's configuration (`ConfigModule`
 * holds the whole of it). A lib's module is then configured once by the app, yet is a plain static
 * module: any module that needs its services imports it, and Nest keeps one instance of it per app.
 */
export function optionsFromConfig<Options>(token: InjectionToken, section: string): FactoryProvider<Options> {
  return { provide: token, inject: [ConfigService], useFactory: (config: ConfigService) => config.getOrThrow<Options>(section) };
}
