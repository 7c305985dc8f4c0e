export { ConsoleSignInModule } from './console-sign-in/console-sign-in.module.js';
export { OAuthModule } from './oauth.module.js';
export { oauthConfig } from './oauth.config.js';
export type { IdentityProviderOptions, OAuthModuleOptions } from './oauth.options.js';
export { registerOAuthFormBodies } from './http/form-bodies.js';
