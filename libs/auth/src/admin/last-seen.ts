/**
 * When a user was last seen, as one SQL expression over the `users` row aliased `user`: the latest
 * of every trace a credential's use leaves. Each source is a subquery on an index by user id, so a
 * page of users costs one statement however many users there are.
 *
 * This list is the one place a new source of activity joins.
 */
const LAST_SEEN_SOURCES = [
  // Bumped by each upsert of a token's user (`UsersService`), at most once a minute per instance.
  `"user"."updated_at"`,
  // Bumped by each use of a secret, at most once a minute (`McpSecretsService.holder`).
  `(SELECT max(secret.last_used_at) FROM mcp_secrets secret WHERE secret.user_id = "user"."id")`,
  // Set on each refresh; a connection's sign-in bumps the user row itself.
  `(SELECT max(connection.last_used_at) FROM oauth_connections connection WHERE connection.user_id = "user"."id")`,
  // The web console's sessions, moved forward at most once a minute.
  `(SELECT max(session.last_seen_at) FROM console_sessions session WHERE session.user_id = "user"."id")`,
];

/** `GREATEST` skips the sources that are null (no secret, no connection); null only if all are. */
export const LAST_SEEN_SQL = `GREATEST(${LAST_SEEN_SOURCES.join(', ')})`;
