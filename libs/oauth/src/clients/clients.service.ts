import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThan, type Repository } from 'typeorm';
import { hashSecret } from '@app/auth';
import { OAUTH_OPTIONS, type OAuthModuleOptions } from '../oauth.options.js';
import {
  clientFromMetadataDocument,
  ClientMetadataError,
  isMetadataDocumentUrl,
  JWT_BEARER_GRANT,
  MAX_URI_LENGTH,
  type ClientRegistration,
  type OAuthClient,
} from './client-metadata.js';
import { ClientMetadataFetchError, fetchClientMetadataDocument } from './client-metadata-fetch.js';
import { RegisteredClientEntity } from './registered-client.entity.js';

/** Why a client is not known, or not what it claims; the message names it. */
export class UnknownClientError extends Error {}

/** What `/register` answers (RFC 7591 §3.2.1). */
export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  client_id_issued_at: number;
  client_secret_expires_at?: number;
  client_name: string;
  client_uri?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
}

/** The draft's advice: a metadata document is small. */
const DOCUMENT_MAX_BYTES = 5 * 1024;
const DOCUMENT_TIMEOUT_MS = 5_000;
/** Documents kept per instance; the oldest goes first. */
const DOCUMENT_CACHE_ENTRIES = 1_000;

/**
 * The clients of the built-in authorization server: those that registered (RFC 7591, in the
 * database, for `OAUTH_CLIENT_LIFETIME` after their last sign-in) and those whose id is the URL of
 * their metadata document (CIMD, fetched with SSRF guards and kept as its `Cache-Control` allows).
 */
@Injectable()
export class ClientsService {
  private readonly documents = new Map<string, { client: Promise<OAuthClient>; until: number }>();

  constructor(
    @InjectRepository(RegisteredClientEntity) private readonly registered: Repository<RegisteredClientEntity>,
    @Inject(OAUTH_OPTIONS) private readonly options: OAuthModuleOptions,
  ) {}

  async register(registration: ClientRegistration): Promise<RegisteredClient> {
    const id = `mrb_client_${randomBytes(16).toString('base64url')}`;
    const secret = registration.authMethod === 'none' ? undefined : `mrb_cs_${randomBytes(32).toString('base64url')}`;
    const row = await this.registered.save(
      this.registered.create({
        id,
        secretHash: secret ? hashSecret(secret) : null,
        authMethod: registration.authMethod,
        clientName: registration.clientName,
        clientUri: registration.clientUri,
        redirectUris: registration.redirectUris,
        expiresAt: this.lifetimeFromNow(),
      }),
    );
    return {
      client_id: id,
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
      client_name: row.clientName,
      ...(row.clientUri ? { client_uri: row.clientUri } : {}),
      redirect_uris: row.redirectUris,
      grant_types: ['authorization_code', 'refresh_token', ...(registration.grantTypes.includes(JWT_BEARER_GRANT) ? [JWT_BEARER_GRANT] : [])],
      response_types: ['code'],
      token_endpoint_auth_method: row.authMethod,
    };
  }

  /** The client `clientId` names: a live registration, or a metadata document fetched now or earlier. */
  async find(clientId: string): Promise<OAuthClient> {
    if (clientId.length > MAX_URI_LENGTH) throw new UnknownClientError(`A client id is at most ${MAX_URI_LENGTH} characters; this one has ${clientId.length}`);
    // From HTTP Basic, where nothing else refused them: no id this server gave or fetched holds a control character.
    if (/\p{Cc}/u.test(clientId) || !clientId.isWellFormed()) throw new UnknownClientError('The client id holds a control character or half a surrogate pair');
    if (isMetadataDocumentUrl(clientId, this.options.allowInsecureDev)) return this.fromDocument(clientId);
    const row = await this.registered.findOneBy({ id: clientId, expiresAt: MoreThan(new Date()) });
    if (!row) throw new UnknownClientError(`No client is registered as "${clientId}" (or its registration expired): register it again`);
    return {
      id: row.id,
      name: row.clientName,
      verified: false,
      redirectUris: row.redirectUris,
      authMethod: row.authMethod,
      ...(row.secretHash ? { secretHash: row.secretHash } : {}),
    };
  }

  /**
   * The client a `/token` or `/revoke` request is from, proven as it registered: a public client by
   * its id alone (its proof is PKCE), a confidential one by its secret, by the method it chose.
   */
  async authenticate(credentials: { clientId?: string; secret?: string; method: 'none' | 'client_secret_basic' | 'client_secret_post' }): Promise<OAuthClient> {
    if (!credentials.clientId) throw new UnknownClientError('The request names no client: send client_id');
    const client = await this.find(credentials.clientId);
    if (client.authMethod !== credentials.method)
      throw new UnknownClientError(`This client authenticates with ${client.authMethod}, not ${credentials.method}`);
    if (client.secretHash) {
      const presented = Buffer.from(hashSecret(credentials.secret ?? ''), 'hex');
      if (!timingSafeEqual(presented, Buffer.from(client.secretHash, 'hex'))) throw new UnknownClientError('The client secret is wrong');
    }
    return client;
  }

  /** A registered client that signs a user in lives on for another `OAUTH_CLIENT_LIFETIME`. */
  async keepAlive(clientId: string): Promise<void> {
    await this.registered.update({ id: clientId }, { expiresAt: this.lifetimeFromNow() });
  }

  private fromDocument(url: string): Promise<OAuthClient> {
    const cached = this.documents.get(url);
    if (cached && cached.until > Date.now()) return cached.client;
    const entry = { client: this.fetchDocument(url), until: Number.POSITIVE_INFINITY };
    this.documents.delete(url);
    this.documents.set(url, entry);
    if (this.documents.size > DOCUMENT_CACHE_ENTRIES) this.documents.delete(this.documents.keys().next().value!);
    entry.client.catch(() => this.documents.delete(url));
    return entry.client;
  }

  private async fetchDocument(url: string): Promise<OAuthClient> {
    try {
      const fetched = await fetchClientMetadataDocument(new URL(url), {
        allowInsecureDev: this.options.allowInsecureDev,
        maxBytes: DOCUMENT_MAX_BYTES,
        timeoutMs: DOCUMENT_TIMEOUT_MS,
        ca: this.options.clientMetadataCa,
      });
      const client = clientFromMetadataDocument(url, fetched.body);
      const entry = this.documents.get(url);
      if (entry) entry.until = Date.now() + fetched.maxAgeSeconds * 1000;
      return client;
    } catch (error) {
      if (error instanceof ClientMetadataFetchError || error instanceof ClientMetadataError)
        throw new UnknownClientError(`The client metadata document at ${url} could not be used: ${error.message}`);
      throw error;
    }
  }

  private lifetimeFromNow(): Date {
    return new Date(Date.now() + this.options.clientLifetimeSeconds * 1000);
  }
}
