export { BackgroundWrites } from './background-writes.js';
export { CALLER_RESOLVER, missingScopes, type CallerGrant, type CallerResolver, type UserInfo } from './caller.js';
export { CommonModule, type CommonModuleOptions } from './common.module.js';
export { ConfigError } from './config/config-error.js';
export { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from './database-unavailable.js';
export { describeError, stackFrames } from './error-log.js';
export { InstanceBroadcast, type BroadcastListener } from './instance-broadcast.js';
export { Metrics } from './telemetry/metrics.js';
export { Tracing, tracingRequested, type TracingSettings } from './telemetry/tracing.js';
export { ScopesSupported } from './scopes-supported.js';
export {
  bool,
  defineConfigSection,
  duration,
  int,
  list,
  oneOf,
  optionalStr,
  str,
  type ConfigSection,
  type Env,
  type KeySpec,
} from './config/config-section.js';
export { optionsFromConfig } from './config/module-options.js';
export {
  ConflictError,
  DomainError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  LengthRequiredError,
  NotFoundError,
  PayloadTooLargeError,
  UnavailableError,
} from './errors.js';
export {
  cursorKey,
  DEFAULT_PAGE_SIZE,
  decodeCursor,
  encodeCursor,
  instantKeySql,
  MAX_PAGE_SIZE,
  PageQueryDto,
  toPage,
  type CursorParameter,
  type KeyReader,
  type Keyset,
  type KeyValues,
  type Page,
} from './pagination.js';
export { ErrorFilter, JSON_RPC_ROUTE_CONFIG, JSON_RPC_SERVER_ERROR, type ErrorBody } from './rest/error.filter.js';
export { createValidationPipe, fieldProblems, invalidRequest, Omittable } from './rest/validation.js';
export { checkedJsonText, jsonBodyText, keepJsonBodyText } from './rest/json-body.js';
export { UuidParamPipe } from './rest/uuid-param.pipe.js';
export { isUuid } from './uuid.js';
export { HOURLY_AFTER_START, PeriodicJob, type PeriodicJobTiming } from './periodic-job.js';
export { API_TAGS, ApiTag, type ApiTagName } from './rest/api-tags.js';
export { PublicAddress, requestOrigin, type RequestAddress } from './public-address.js';
export { closeRedis, connectRedis } from './redis.js';
export { Signer, type PurposeSigner } from './signer.js';
export { UserDataContributor, type UserDataContributorShape } from './user-data/user-data-contributor.decorator.js';
export { UserDataContributors, type NamedContributor } from './user-data/user-data-contributors.js';
export { AUTHENTICATION_REQUIRED, bearerChallenge, resourceMetadataUrl, type ChallengeDetail } from './rest/bearer-challenge.js';
export { commonConfig } from './common.config.js';
export { isLoopback, parseUrl } from './config/hosts.js';
export { isUnstorableText, LONE_SURROGATE_PROBLEM, NUL_PROBLEM, pathsWithLoneSurrogates, pathsWithNul } from './unstorable-text.js';
export { readIsoDateTime, type DateTimePrecision, type IsoDateTime } from './iso-date-time.js';
