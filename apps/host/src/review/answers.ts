/**
 * How the review server answers: every response carries the page's security headers, a
 * failure is `{ ok: false, message }` with one sentence, and a request body is read as a
 * JSON object or not at all. The one rule: nothing here answers without `SECURITY_HEADERS`.
 */
import { readPage } from './page-files.ts';

/** The headers on every answer: the page loads nothing from elsewhere and is never cached. */
export const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** A JSON answer. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...SECURITY_HEADERS, ...headers } });
}

/** A refusal: one sentence, and what else the page needs to know (`stale`). */
export function refusal(message: string, status = 400, extra: Record<string, unknown> = {}): Response {
  return json({ ok: false, message, ...extra }, status);
}

/** One of the page's files, or a 404. */
export function page(name: string, status = 200): Response {
  const file = readPage(name);
  if (file === undefined) return new Response('ws: no such file\n', { status: 404, headers: SECURITY_HEADERS });
  return new Response(file.text, { status, headers: { ...SECURITY_HEADERS, 'Content-Type': file.type } });
}

/** A request body as a JSON object, or undefined. */
export async function body(req: Request): Promise<Record<string, unknown> | undefined> {
  try {
    const value = (await req.json()) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
