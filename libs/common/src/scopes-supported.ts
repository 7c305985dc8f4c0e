import { Injectable } from '@nestjs/common';

/**
 * The OAuth scopes this server's tools require, as the MCP registry finds them at start-up: what
 * the RFC 9728 metadata (in the auth lib, which sits above MCP) lists as `scopes_supported`.
 */
@Injectable()
export class ScopesSupported {
  private scopes: readonly string[] = [];

  declare(scopes: Iterable<string>): void {
    this.scopes = [...new Set(scopes)].sort();
  }

  list(): readonly string[] {
    return this.scopes;
  }
}
