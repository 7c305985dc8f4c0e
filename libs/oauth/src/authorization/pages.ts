import { createHash } from 'node:crypto';
import { withDeceptiveCharactersShown } from '../clients/client-metadata.js';
import type { ConsentView } from './authorization.service.js';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!);
/** A name as people must read it: escaped, and with any character that would make it read as another written out. */
const shownName = (text: string) => escapeHtml(withDeceptiveCharactersShown(text));

/** The pages' one style sheet, allowed by its hash: no inline script or style from anywhere else can run. */
const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}.note{background:#fff4ce;border-left:4px solid #b88700;padding:.5rem .75rem}
code{word-break:break-all}ul{padding-left:1.2rem}.actions{display:flex;gap:1rem;margin-top:1.5rem}
button{font:inherit;padding:.5rem 1.25rem;border-radius:.4rem;border:1px solid #444;background:#fff;cursor:pointer}
button[value=allow]{background:#0b57d0;border-color:#0b57d0;color:#fff}button:focus-visible{outline:3px solid #fbbc04;outline-offset:2px}`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * The headers of every sign-in page: nothing runs but the page itself, no other site may frame it
 * (clickjacking the Allow button), and it is never cached. `formTarget`, on the consent page, is
 * where the form's answer redirects to, which `form-action` must allow.
 */
export function pageHeaders(formTarget?: string): Record<string, string> {
  const formAction = formTarget ? `'self' ${formTarget}` : "'none'";
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    // Not no-referrer: under it a browser sends `Origin: null` with the form, which the consent check refuses.
    'referrer-policy': 'same-origin',
    'x-content-type-options': 'nosniff',
  };
}

/** The source `form-action` needs for a redirect URI: its origin, or its scheme for an app's own (`cursor:`). */
export function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body>
</html>`;
}

/** Names the app (flagged when it named itself), the account and what it may do; two buttons, no script. */
export function consentPage(view: ConsentView): string {
  const app = shownName(view.clientName);
  const origin = escapeHtml(formActionSource(view.redirectUri));
  const scopes = view.scopes.length
    ? `<ul>${view.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('')}</ul>`
    : '<p>No scopes: only tools that need none.</p>';
  const provenance = view.clientVerified
    ? `<p>Its identity is published at <code>${escapeHtml(view.clientId)}</code>.</p>`
    : `<p class="note" role="note"><strong>Unverified app.</strong> This app registered itself and chose its own name; make sure you started this sign-in from it.</p>`;
  return page(
    `Allow ${withDeceptiveCharactersShown(view.clientName)}?`,
    `<h1>Allow <strong>${app}</strong> to use your account?</h1>
${provenance}
<p>Signed in as <strong>${shownName(view.account)}</strong>.</p>
<h2>It will be able to use tools with these scopes</h2>
${scopes}
<p>You will be returned to <code>${origin}</code>. You can revoke this access at any time.</p>
<form method="post" action="/oauth/consent">
<input type="hidden" name="request" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="consent_token" value="${escapeHtml(view.consentToken)}">
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>`);
}
